"""CompositeBrain: answer each Brain method with a chosen brain (e.g. LoRA router + LLM for the rest).

The normal LLM set-up mixes brains: a local LoRA router classifies (fast, free, private) while the
LLM does slot filling, planning, synthesis and critique. ``parts`` maps method names to the brain
that answers them; everything else goes to ``default``. A part only needs the methods it is
used for (a router object with ``classify`` is enough).

:class:`LazyPart` wraps a local model that is loaded on first use in a worker thread (so building
the brain never blocks start-up); when loading or inference fails, that part falls back to another
brain for the rest of the process and a Notice says so. Notices collected while the brain was
built are emitted at the first call inside a turn, so they reach that turn's trace.
"""

from __future__ import annotations

import asyncio
from typing import Any
from collections.abc import Callable

from core.brains.base import Brain, BrainError, share_vocabulary
from core.events import Notice
from core.telemetry import emit
from core.vocabulary import Vocabulary

METHODS: tuple[str, ...] = (
    "classify", "fill_slots", "plan", "replan", "react_step", "judge_sufficiency", "synthesize", "critique",
    "refine", "extract_facts", "name_topics",
)
ROLES = {"classify": "router", "critique": "critic", "fill_slots": "slots", "judge_sufficiency": "sufficiency",
         "react_step": "react", "extract_facts": "facts", "synthesize": "synthesis"}


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:200]


class CompositeBrain:
    """Implements :class:`core.brains.base.Brain` by delegating per method."""

    def __init__(self, parts: dict[str, Any], default: Brain, *, name: str | None = None,
                 notices: list[tuple[str, str]] | None = None) -> None:
        unknown = sorted(set(parts) - set(METHODS))
        if unknown:
            raise ValueError(f"unknown Brain method(s) in parts: {', '.join(unknown)}")
        for method, part in parts.items():
            if not callable(getattr(part, method, None)):
                raise TypeError(f"part {getattr(part, 'name', part)!r} has no method {method}()")
        self.parts = dict(parts)
        self.default = default
        self._name = name
        self.notices: list[tuple[str, str]] = list(notices or [])  # (level, message), for display
        self._pending = list(self.notices)

    @property
    def name(self) -> str:
        if self._name:
            return self._name
        roles: dict[int, list[str]] = {}
        brains: dict[int, Any] = {}
        for method, part in self.parts.items():
            if part is self.default:
                continue
            roles.setdefault(id(part), []).append(ROLES.get(method, method))
            brains[id(part)] = part
        labels = []
        for key, part in brains.items():
            label = getattr(part, "name", type(part).__name__)
            if not any(r in label for r in roles[key]):
                label += f" ({', '.join(roles[key])})"
            labels.append(label)
        return " + ".join(labels + [getattr(self.default, "name", "brain")])

    def brain_for(self, method: str) -> Any:
        return self.parts.get(method, self.default)

    def use_vocabulary(self, vocabulary: Vocabulary) -> None:
        """Hand the collection's vocabulary to the default brain and every part."""
        for part in {id(p): p for p in (self.default, *self.parts.values())}.values():
            share_vocabulary(part, vocabulary)

    def warm(self) -> None:
        """Start loading every lazy local model in the background (the app and ``ask`` call this
        while the hub starts, so the first turn does not wait for torch)."""
        for part in {id(p): p for p in self.parts.values()}.values():
            if isinstance(part, LazyPart):
                part.warm()

    async def ready(self) -> None:
        """Wait until every lazy local model has loaded (or been given up for its fallback)."""
        for part in {id(p): p for p in self.parts.values()}.values():
            if isinstance(part, LazyPart):
                await part._target()

    async def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        while self._pending:
            level, message = self._pending.pop(0)
            emit(Notice(level=level, message=message, source="brain"))  # type: ignore[arg-type]
        return await getattr(self.brain_for(method), method)(*args, **kwargs)

    async def classify(self, question, history):
        return await self._call("classify", question, history)

    async def fill_slots(self, question, intent_type, history, vocabulary):
        return await self._call("fill_slots", question, intent_type, history, vocabulary)

    async def plan(self, question, intent, **kwargs):
        return await self._call("plan", question, intent, **kwargs)

    async def replan(self, question, plan, executed, latest):
        return await self._call("replan", question, plan, executed, latest)

    async def react_step(self, question, intent, **kwargs):
        return await self._call("react_step", question, intent, **kwargs)

    async def judge_sufficiency(self, question, intent, contexts, new):
        return await self._call("judge_sufficiency", question, intent, contexts, new)

    async def synthesize(self, request, on_token=None):
        return await self._call("synthesize", request, on_token)

    async def critique(self, question, intent, contexts, answer, sub_questions):
        return await self._call("critique", question, intent, contexts, answer, sub_questions)

    async def refine(self, question, intent, verdict):
        return await self._call("refine", question, intent, verdict)

    async def extract_facts(self, question, answer, contexts):
        return await self._call("extract_facts", question, answer, contexts)

    async def name_topics(self, topics):
        return await self._call("name_topics", topics)


class LazyPart:
    """A local model (router or critic) loaded on first use; falls back to ``fallback`` on failure.

    ``loader()`` runs in a worker thread and returns an object with the wrapped method(s).
    """

    def __init__(self, label: str, loader: Callable[[], Any], fallback: Any, *, what: str) -> None:
        self.label = label
        self.loader = loader
        self.fallback = fallback
        self.what = what  # "LoRA router", "local critic": for notices
        self.impl: Any = None
        self.failed = False
        self._loading: asyncio.Task | None = None
        self.vocabulary: Vocabulary | None = None  # handed on to the model once it has loaded

    def use_vocabulary(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary
        for part in (self.fallback, self.impl):
            share_vocabulary(part, vocabulary)

    @property
    def name(self) -> str:
        if self.failed:
            return getattr(self.fallback, "name", "fallback")
        return getattr(self.impl, "name", None) or self.label

    def warm(self) -> None:
        if self._loading is None and self.impl is None and not self.failed:
            self._loading = asyncio.ensure_future(asyncio.to_thread(self.loader))

    async def _target(self) -> Any:
        if self.impl is None and not self.failed:
            self.warm()
            try:
                self.impl = await asyncio.shield(self._loading)  # type: ignore[arg-type]
                if self.vocabulary is not None:
                    share_vocabulary(self.impl, self.vocabulary)
            except Exception as exc:  # noqa: BLE001 - any load failure means: use the fallback
                self._give_up(f"{self.what} could not be loaded ({_one_line(exc)})")
        return self.fallback if self.failed else self.impl

    def _give_up(self, why: str) -> None:
        self.failed = True
        emit(Notice(level="warning", source="brain",
                    message=f"{why}; using {getattr(self.fallback, 'name', 'the fallback')} instead"))

    async def _run(self, method: str, *args: Any) -> Any:
        target = await self._target()
        if target is self.fallback:
            return await getattr(target, method)(*args)
        try:
            return await getattr(target, method)(*args)
        except BrainError:
            raise
        except Exception as exc:  # noqa: BLE001 - a broken local model must not end the turn
            self._give_up(f"{self.what} failed ({_one_line(exc)})")
            return await getattr(self.fallback, method)(*args)

    async def classify(self, question, history):
        return await self._run("classify", question, history)

    async def critique(self, question, intent, contexts, answer, sub_questions):
        return await self._run("critique", question, intent, contexts, answer, sub_questions)
