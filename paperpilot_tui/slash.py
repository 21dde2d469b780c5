"""Slash commands and ``@paper`` mentions of the question box: the command table, parsing and completion.

A line that starts with ``/`` is a command (``/collection mine``, ``/ingest ~/papers``); ``//`` sends
a question that starts with ``/``. ``@`` names one document of the active collection: completion
writes it as ``@[Its Title]`` and the question is then answered from that document only. Everything
here is pure (no app, no hub): the app hands in what it knows (collections, documents, a folder to
list) and gets back a parsed command, a scoped question or completion candidates.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Command:
    name: str
    usage: str  # the argument, as /help shows it ("" when none)
    help: str
    needs_arg: bool = False
    choices: tuple[str, ...] = ()  # the only arguments accepted, when fixed


COMMANDS: tuple[Command, ...] = (
    Command("collection", "NAME", "answer the next questions from collection NAME", needs_arg=True),
    Command("ingest", "PATH… [--collection NAME]",
            "add files, folders, arxiv:ID, a .bib or zotero:[PATH][#coll] to the active collection (or NAME)", needs_arg=True),
    Command("research", "TOPIC", "start a deep-research run on TOPIC", needs_arg=True),
    Command("session", "", "open the sessions browser"),
    Command("memory", "", "open the memory browser"),
    Command("export", "", "export this session to Markdown"),
    Command("llm", "offline|openai", "answer with the offline brain or the OpenAI-compatible LLM",
            needs_arg=True, choices=("offline", "openai")),
    Command("help", "", "list the slash commands"),
)
BY_NAME = {c.name: c for c in COMMANDS}


class SlashError(ValueError):
    """A command or mention that cannot run: its message is the one line the chat shows."""


@dataclass(frozen=True)
class Invocation:
    command: Command
    arg: str


def is_command(text: str) -> bool:
    """Whether the box holds a command (``//`` is a question that starts with ``/``)."""
    text = text.lstrip()
    return text.startswith("/") and not text.startswith("//")


def literal(text: str) -> str:
    """The question a ``//…`` line stands for (``//etc`` asks about ``/etc``)."""
    stripped = text.lstrip()
    return stripped[1:] if stripped.startswith("//") else text


def parse(text: str) -> Invocation:
    """The command in ``text`` (which :func:`is_command`), or :class:`SlashError` with one line."""
    head, _, arg = text.strip()[1:].partition(" ")
    name, arg = head.lower(), arg.strip()
    command = BY_NAME.get(name)
    if command is None:
        near = [c.name for c in COMMANDS if c.name.startswith(name[:2])] if name else []
        hint = f" (did you mean /{near[0]}?)" if len(near) == 1 else ""
        return _raise(f"unknown command /{name}{hint}; /help lists the commands")
    if command.needs_arg and not arg:
        return _raise(f"/{name} needs {command.usage}: /{name} {command.usage}")
    if not command.needs_arg and arg:
        return _raise(f"/{name} takes no argument; /help lists the commands")
    if command.choices and arg not in command.choices:
        return _raise(f"/{name} takes one of: {', '.join(command.choices)} (not {arg!r})")
    return Invocation(command, arg)


def _raise(line: str) -> Invocation:
    raise SlashError(line)


def ingest_args(arg: str) -> tuple[list[str], str | None]:
    """``/ingest``'s paths (shell-quoted when they hold spaces, ``~`` expanded) and its
    ``--collection NAME``, if given."""
    import shlex

    try:
        words = shlex.split(arg)
    except ValueError as exc:
        raise SlashError(f"/ingest: {exc} (quote a path that holds spaces: '/ingest \"my papers/\"')") from None
    collection = None
    if "--collection" in words:
        at = words.index("--collection")
        if at + 1 >= len(words):
            raise SlashError("/ingest: --collection needs a NAME")
        collection = words[at + 1]
        del words[at:at + 2]
    if not words:
        raise SlashError("/ingest needs a file, a folder, arxiv:ID, a .bib file or zotero:[PATH][#collection]")
    return [w if w.lower().startswith("arxiv:") else os.path.expanduser(w) for w in words], collection


def help_lines() -> list[str]:
    """One line per command, for /help."""
    return [f"/{c.name}{' ' + c.usage if c.usage else ''} — {c.help}" for c in COMMANDS] + [
        "@ — name one document of the collection (completion lists their titles): the answer uses only it",
        "// — send a question that starts with /"]


# ---- @paper mentions ---------------------------------------------------------------------------------

_MENTION = re.compile(r"(?<![\w@])@(?:\[(?P<title>[^\]\n]+)\]|(?P<word>[\w.:-]+))")


@dataclass(frozen=True)
class Scoped:
    """A question with its mention resolved: the text the agent reads and the one document it searches."""

    question: str
    doc_id: str | None = None
    title: str = ""


def has_mention(text: str) -> bool:
    return _MENTION.search(text) is not None


def short_title(title: str) -> str:
    """The name a paper goes by: the head of ``Name: subtitle`` when it is short, else the title."""
    head = title.split(":", 1)[0].strip()
    return head if ":" in title and 0 < len(head.split()) <= 4 else title.strip()


def resolve(text: str, docs: list[tuple[str, str]]) -> Scoped:
    """Resolve the ``@`` mention in a question against ``docs`` ((doc_id, title) of the collection).

    ``@[Title]`` names a document by its title, ``@word`` by its id or the one title it begins a word
    of. The mention is replaced by the paper's short name (leading the question: ``Name: …``), so the
    question still reads as one. No
    mention: the question unscoped. A name that matches no document, or more than one, or several
    mentions: :class:`SlashError`."""
    found = list(_MENTION.finditer(text))
    if not found:
        return Scoped(text)
    if len(found) > 1:
        raise SlashError("one @paper per question: the answer is scoped to a single document")
    m = found[0]
    name = (m.group("title") or m.group("word")).strip()
    doc_id, title = _match(name, docs)
    head, rest = text[:m.start()].strip(), text[m.end():].strip()
    name = short_title(title)
    if head:  # "what does @[X] propose?": the name in its place
        question = " ".join(f"{head} {name} {rest}".split())
    else:  # "@[X] what does it propose?": the name leads, as a topic
        question = f"{name}: {' '.join(rest.split())}" if rest else name
    return Scoped(question, doc_id, title)


def _match(name: str, docs: list[tuple[str, str]]) -> tuple[str, str]:
    low = name.lower()
    exact = [d for d in docs if low in (d[0].lower(), d[1].lower())]
    hits = exact or [d for d in docs if _word_prefix(low, d[1]) or d[0].lower().startswith(low)]
    if len(hits) == 1:
        return hits[0]
    if not docs:
        raise SlashError(f"@{name}: the active collection has no documents yet (/ingest PATH adds some)")
    if not hits:
        raise SlashError(f"@{name}: no document of the active collection has that title; type @ to list them")
    raise SlashError(f"@{name} names {len(hits)} documents; type more of the title, or pick one after @")


def _word_prefix(prefix: str, title: str) -> bool:
    """``prefix`` begins the title or one of its words (case-insensitive)."""
    low = title.lower()
    return low.startswith(prefix) or any(w.startswith(prefix) for w in re.findall(r"[\w-]+", low))


# ---- completion --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Candidate:
    """Replace ``text[start:end]`` with ``insert``; ``label`` is what the menu shows."""

    label: str
    insert: str
    start: int
    end: int


MAX_CANDIDATES = 20


def complete(text: str, *, collections: list[str] = (), docs: list[tuple[str, str]] = (),
             cwd: Path | None = None) -> list[Candidate]:
    """Completion for the text before the cursor: command names, a command's argument (collection
    names, ``/llm`` choices, paths for ``/ingest``) or the document titles after ``@``."""
    if is_command(text) and "\n" not in text:
        lead = len(text) - len(text.lstrip())
        head, space, arg = text[lead + 1:].partition(" ")
        if not space:
            return [Candidate(f"/{c.name}{' ' + c.usage if c.usage else ''} — {c.help}",
                              f"/{c.name}{' ' if c.needs_arg else ''}", lead, len(text))
                    for c in COMMANDS if c.name.startswith(head.lower())]
        start = len(text) - len(arg)
        command = BY_NAME.get(head.lower())
        if command is None:
            return []
        options = {"collection": list(collections), "llm": list(command.choices)}.get(command.name)
        if options is not None:
            return [Candidate(o, o, start, len(text)) for o in options if o.startswith(arg)][:MAX_CANDIDATES]
        if command.name == "ingest":  # the path being typed: the last word
            word = arg.rsplit(" ", 1)[-1]
            return [] if word.startswith("-") else _paths(word, len(text) - len(word), len(text), cwd or Path.cwd())
        return []
    return _mention(text, docs)


def _mention(text: str, docs: list[tuple[str, str]]) -> list[Candidate]:
    at = text.rfind("@")
    if at < 0 or (at > 0 and (text[at - 1].isalnum() or text[at - 1] == "@")):
        return []
    typed = text[at + 1:]
    if typed.startswith("["):
        if "]" in typed:
            return []
        typed = typed[1:]
    elif any(ch.isspace() for ch in typed):
        return []
    low = typed.lower()
    hits = [(d, t) for d, t in docs if not low or _word_prefix(low, t) or d.lower().startswith(low)]
    return [Candidate(t, f"@[{t}]", at, len(text)) for _, t in sorted(hits, key=lambda h: h[1].lower())][
        :MAX_CANDIDATES]


def _paths(arg: str, start: int, end: int, cwd: Path) -> list[Candidate]:
    """Entries of the folder ``arg`` is in whose names begin with what was typed of the last part."""
    folder, _, stem = arg.rpartition("/")
    base = Path(os.path.expanduser(folder or ("/" if arg.startswith("/") else ".")))
    base = base if base.is_absolute() else cwd / base
    prefix = f"{folder}/" if folder or arg.startswith("/") else ""
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name.lower())
    except OSError:
        return []
    out = []
    for e in entries:
        if e.name.startswith(stem) and (stem.startswith(".") or not e.name.startswith(".")):
            is_dir = e.is_dir()
            out.append(Candidate(e.name + ("/" if is_dir else ""), prefix + e.name + ("/" if is_dir else ""), start, end))
    return out[:MAX_CANDIDATES]
