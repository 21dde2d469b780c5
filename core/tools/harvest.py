"""A vocabulary for a hub that cannot describe its own (no ``get_vocabulary``: an upstream server).

Such a server's ``list_collections`` answers in Markdown with no titles, so the collection's names
(acronyms and their long forms, paper titles) must come from what the server does return: the
titles and text of its search hits and of its ``get_document_summary`` answers. :class:`Harvest`
keeps that text per (collection, document) and builds a :class:`~core.vocabulary.Vocabulary` from
it with the same rules as the bundled hub (:func:`core.vocabulary.build`), keeping the papers and
the names the text defines with a long form, rebuilt only when new text arrived (its revision is
the count of texts kept). The agent asks it with the question before
each turn (:func:`seed`), so a long form in the first question ("Direct Preference Optimization")
already maps to its acronym.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from core.types import RetrievedContext
from core.vocabulary import DocumentText, Vocabulary, build

MAX_TEXTS_PER_DOCUMENT = 40  # bounded memory on a long session: the first texts seen carry the definitions


@dataclass
class _Doc:
    title: str = ""
    texts: list[str] = field(default_factory=list)


class Harvest:
    """Off until a hub is found to lack ``get_vocabulary`` (then :attr:`enabled`): the bundled hub's
    own vocabulary needs none of this, and keeping every hit's text would cost memory for nothing."""

    def __init__(self) -> None:
        self.enabled = False
        self._docs: dict[str | None, dict[str, _Doc]] = {}
        self._built: dict[str | None, tuple[int, Vocabulary]] = {}

    def _doc(self, collection: str | None, doc_id: str) -> _Doc:
        return self._docs.setdefault(collection, {}).setdefault(doc_id, _Doc())

    def _keep(self, doc: _Doc, text: str) -> None:
        text = " ".join(text.split())
        if text and text not in doc.texts and len(doc.texts) < MAX_TEXTS_PER_DOCUMENT:
            doc.texts.append(text)

    def add_hits(self, collection: str | None, contexts: list[RetrievedContext]) -> None:
        """Keep the title and text of search hits (their cut sentences are already gone)."""
        if not self.enabled:
            return
        for c in contexts:
            if not c.doc_id:
                continue
            doc = self._doc(collection, c.doc_id)
            if c.title and (not doc.title or doc.title == c.source.rsplit("/", 1)[-1]):
                doc.title = c.title
            self._keep(doc, c.content)

    def add_summary(self, collection: str | None, doc_id: str, title: str, text: str) -> None:
        if not self.enabled:
            return
        doc = self._doc(collection, doc_id)
        doc.title = title or doc.title
        self._keep(doc, text)

    def revision(self, collection: str | None) -> int:
        return sum(len(d.texts) + bool(d.title) for d in self._docs.get(collection, {}).values())

    def vocabulary(self, collection: str | None) -> Vocabulary:
        """The vocabulary of everything kept for ``collection`` (built once per revision)."""
        rev = self.revision(collection)
        cached = self._built.get(collection)
        if cached is None or cached[0] != rev:
            docs = [DocumentText(title=d.title, chunks=list(d.texts))
                    for d in self._docs.get(collection, {}).values() if d.title or d.texts]
            built = build(docs, own_names=False)  # hits, not whole papers in order
            # Only papers and names the text defines ("Proximal Policy Optimization (PPO)"): a name
            # merely seen in two hits is evidence of what was searched, not of what is indexed.
            cached = (rev, Vocabulary(None, tuple(t for t in built.terms if t.kind == "paper" or t.aliases)))
            self._built[collection] = cached
        return cached[1]


async def seed(search: Callable[[str], Awaitable[list[RetrievedContext]]], question: str) -> None:
    """Search ``question`` once so its documents' titles and text join the harvest; a failed search
    leaves the vocabulary as it was (retrieval reports hub failures)."""
    if not question.strip():
        return
    try:
        await search(question)
    except Exception:  # noqa: BLE001 - the vocabulary is an aid; the turn's own search reports failures
        return
