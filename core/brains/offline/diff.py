"""What changed between two versions of a document: a sentence diff, cited from each version.

Used for a comparative question whose two entities are versions of one document (see
:mod:`core.doc_versions`). Sentences present in one version only are paired where they are close
rewrites of each other ("changed"), the rest are "added" or "removed". Every quoted sentence
carries the marker of the retrieved chunk it came from, so the citations point at the old
version's chunks and the new version's chunks respectively.
"""

from __future__ import annotations

import difflib
import re

from core.brains.offline.synthesis import cite
from core.brains.offline.text import passage_sentences
from core.doc_versions import split
from core.types import RetrievedContext, SynthesisRequest

SHOWN = 8  # sentences listed per section
CHANGED_RATIO = 0.6  # how alike two sentences must be to count as one sentence changed


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower()).strip(" .;:!?")


def _context_sentences(contexts: list[tuple[int, RetrievedContext]]) -> list[tuple[str, str, int]]:
    """(normalized, text, marker) in document order, each sentence once."""
    out: list[tuple[str, str, int]] = []
    seen: set[str] = set()
    for mark, c in sorted(contexts, key=lambda mc: (mc[1].chunk_index is None, mc[1].chunk_index or 0)):
        for s in passage_sentences(c.content):
            n = _norm(s)
            if n and n not in seen:
                seen.add(n)
                out.append((n, s, mark))
    return out


def version_diff(request: SynthesisRequest) -> str | None:
    """The diff answer, or None when the question is not about two versions of one document."""
    ents = request.intent.entities
    scoped = [split(e) for e in ents]
    if len(scoped) != 2 or any(v is None for _, v in scoped):
        return None
    (name, va), (_, vb) = scoped
    by = {e: [(i, c) for i, c in enumerate(request.contexts, start=1) if c.entity == e] for e in ents}
    missing = [v for e, (_, v) in zip(ents, scoped) if not by[e]]
    if missing:
        which = " and ".join(f"version {v}" for v in missing)
        return (f"I found no text of {which} of {name} in the knowledge hub, so I cannot say what changed. "
                "Its kept versions are listed by get_document_summary (older ones may have been dropped: "
                "hub.keep_versions).")
    old, new = _context_sentences(by[ents[0]]), _context_sentences(by[ents[1]])
    old_keys, new_keys = {n for n, _, _ in old}, {n for n, _, _ in new}
    removed = [s for s in old if s[0] not in new_keys]
    added = [s for s in new if s[0] not in old_keys]
    changed = []
    for r in list(removed):
        best = max(added, key=lambda a: difflib.SequenceMatcher(None, r[0], a[0]).ratio(), default=None)
        if best is not None and difflib.SequenceMatcher(None, r[0], best[0]).ratio() >= CHANGED_RATIO:
            changed.append((r, best))
            removed.remove(r)
            added.remove(best)
    title = split(by[ents[1]][0][1].title or name)[0]
    same = len(old) - len(removed) - len(changed)
    head = (f"### {title}: version {va} → version {vb} ({len(changed)} sentence(s) changed, {len(added)} added, "
            f"{len(removed)} removed, {same} unchanged)")
    if not (changed or added or removed):
        return head + f"\n\nThe retrieved text of {title} is the same in version {va} and version {vb}."
    lines = [head]
    if changed:
        lines += ["", "**Changed:**"]
        for o, n in changed[:SHOWN]:
            lines += [f"- **Version {va}:** {cite(o[1], [o[2]])}", f"  - **now, in version {vb}:** {cite(n[1], [n[2]])}"]
    for label, items in ((f"Added in version {vb}", added), (f"Removed since version {va}", removed)):
        if items:
            lines += ["", f"**{label}:**"] + [f"- {cite(s[1], [s[2]])}" for s in items[:SHOWN]]
    hidden = max(0, len(changed) - SHOWN) + max(0, len(added) - SHOWN) + max(0, len(removed) - SHOWN)
    if hidden:
        lines += ["", f"({hidden} more differences not listed.)"]
    return "\n".join(lines)
