"""Recorded demo turns, replayed through the real ``TraceStore``, for snapshots, screenshots and
the TUI benchmark.

The turns in ``traces/*.jsonl`` are real offline-brain turns over the bundled corpus
(:mod:`tests.support.record_demo` re-records them). :func:`demo_stores` opens the real stores
(``core.stores.open_stores``) on a fresh data directory and loads the traces, a few facts and
sessions with fixed timestamps into them; :class:`RecordedAgent` answers a question by replaying
the matching recorded turn from that trace store.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from collections.abc import AsyncIterator, Callable
from unittest import mock

TRACES = Path(__file__).parent / "traces"
COMPARE_Q = "Compare LoRA and QLoRA in memory use and accuracy"
FOLLOW_Q = "and which one is faster to train?"
FAIL_Q = "What rank does LoRA use?"
T0 = 1_767_225_600.0  # 2026-01-01 00:00 UTC: the seeded facts and sessions are dated from here

FACTS = [("QLoRA quantizes the frozen base model to 4-bit NormalFloat (NF4).", True),
         ("LoRA reduces GPU memory by 3x compared with full fine-tuning of GPT-3 175B.", False),
         ("DPO optimizes preferences without a separate reward model.", False),
         ("Guanaco reaches 99.3% of ChatGPT on the Vicuna benchmark.", False)]
SESSIONS = [("s001", COMPARE_Q, 2), ("s002", "How does DPO differ from RLHF?", 1)]


def recorded_events(name: str) -> list[Any]:
    """The typed events of one recorded turn."""
    from core.events import event_from_dict

    lines = (TRACES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [event_from_dict(json.loads(line)) for line in lines if line.strip()]


def demo_settings(home: Path | None = None) -> Any:
    from core.config import Settings

    settings = Settings()
    settings.paths.home = str(home or Path(tempfile.mkdtemp(prefix="pp-demo-")))
    return settings


def demo_stores(settings: Any) -> Any:
    """The real stores on ``settings``' data dir, holding the recorded traces and fixed facts/sessions."""
    from core.stores import open_stores

    stores = open_stores(settings).open_all()
    for name in ("compare", "follow_up", "hub_failure"):
        events = recorded_events(name)
        first = events[0]
        stores.traces.save_turn_sync(first.turn_id, first.session_id, first.question, events)
    with mock.patch("time.time", side_effect=_clock()):  # fixed dates: deterministic browsers
        for text, pinned in FACTS:
            stores.facts.add(text, pinned=pinned)
        for sid, title, turns in SESSIONS:
            for _ in range(turns):
                stores.sessions.begin_turn_sync(sid, title)
                stores.sessions.end_turn_sync(sid)
    return stores


def _clock() -> Any:
    t = T0 - 4 * 86400
    while True:
        t += 3600
        yield t


class RecordedAgent:
    """Answers by replaying a recorded turn from the trace store: the comparison first, the
    follow-up after it (or for a question starting with "and "), the hub failure for a question
    that says "fail"; the question and session id are the asked ones."""

    brain_name = "offline (recorded)"
    hub_status = "hub (recorded)"
    collection = "default"

    def __init__(self, traces: Any, *, token_rate: float = 0.0,
                 transform: Callable[[list[Any]], list[Any]] | None = None) -> None:
        self.traces, self.token_rate, self.transform = traces, token_rate, transform
        self.turns: dict[str, list[tuple[str, str]]] = {}
        self.by_name = {name: recorded_events(name)[0].turn_id for name in ("compare", "follow_up", "hub_failure")}

    def pick(self, question: str, n: int) -> str:
        q = question.lower()
        if "fail" in q:
            return self.by_name["hub_failure"]
        if n > 0 or q.startswith("and "):
            return self.by_name["follow_up"]
        return self.by_name["compare"]

    async def run_turn(self, question: str, session_id: str | None = None) -> AsyncIterator[Any]:
        from core.events import TokenDelta, TurnFinished, TurnStarted

        session_id = session_id or "recorded"
        done = self.turns.setdefault(session_id, [])
        events = [ev async for ev in self.traces.replay(self.pick(question, len(done)), speed=0)]
        if self.transform is not None:
            events = self.transform(events)
        for ev in events:
            if isinstance(ev, TurnStarted):
                ev = ev.model_copy(update={"question": question, "session_id": session_id})
            elif isinstance(ev, TurnFinished):
                ev = ev.model_copy(update={"result": ev.result.model_copy(
                    update={"question": question, "session_id": session_id})})
                done.append((question, ev.result.final_answer))
            await asyncio.sleep(1 / self.token_rate if self.token_rate and isinstance(ev, TokenDelta) else 0)
            yield ev

    async def history(self, session_id: str) -> list[Any]:
        return [SimpleNamespace(question=q, answer=a) for q, a in self.turns.get(session_id, [])]


def recorded_factory(agent: RecordedAgent) -> Callable[[Any], Any]:
    """An ``agent_factory`` for the app that yields ``agent``."""

    @asynccontextmanager
    async def factory(settings: Any) -> AsyncIterator[RecordedAgent]:
        yield agent

    return factory


def recorded_app(settings: Any = None, *, agent: RecordedAgent | None = None, paced: bool = False,
                 **kw: Any) -> Any:
    """The real app on seeded real stores, answering with recorded turns; ``paced`` streams the
    answer's parts at the app's ``tui.answer_pace`` (as the offline brain does), else at once."""
    from paperpilot_tui.app import PaperPilotApp

    settings = settings or demo_settings()
    stores = demo_stores(settings)
    pace = settings.tui.answer_pace
    agent = agent or RecordedAgent(stores.traces, token_rate=1 / pace if paced and pace else 0.0)
    return PaperPilotApp(settings, agent_factory=recorded_factory(agent), stores_factory=lambda s: stores, **kw)
