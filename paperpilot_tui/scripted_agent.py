"""The scripted agent and in-memory stores with fixed data (see :mod:`paperpilot_tui.scripted`).

``token_rate`` paces TokenDelta events (tokens per second) for the benchmark; ``delay`` paces every
other event; both default to 0 (as fast as the UI consumes them) for deterministic tests.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any, AsyncIterator, Callable

from paperpilot_tui.scripted import T0, comparative_turn, follow_up_turn, script_for


class ScriptedAgent:
    brain_name = "offline (scripted)"
    hub_status = "hub (scripted)"
    collection = "default"

    def __init__(self, script: Callable[[str, str, int], list[Any]] = script_for, *, delay: float = 0.0,
                 token_rate: float = 0.0, stores: Any = None) -> None:
        self.script, self.delay, self.token_rate = script, delay, token_rate
        self.turns: dict[str, list[tuple[str, str]]] = {}
        stores = stores or SimpleNamespace(facts=None, sessions=None, traces=None)
        self.facts, self.sessions, self.traces = stores.facts, stores.sessions, stores.traces

    def new_session_id(self) -> str:
        return f"s{len(self.turns) + 1:03d}"

    async def run_turn(self, question: str, session_id: str | None = None) -> AsyncIterator[Any]:
        session_id = session_id or self.new_session_id()
        done = self.turns.setdefault(session_id, [])
        events = self.script(question, session_id, len(done))
        for ev in events:
            ev.turn_id = ev.turn_id or "scripted"
            if ev.kind == "token" and self.token_rate:
                await asyncio.sleep(1 / self.token_rate)
            elif self.delay:
                await asyncio.sleep(self.delay)
            else:
                await asyncio.sleep(0)
            yield ev
        last = events[-1]
        if last.kind == "turn_finished":
            done.append((question, last.result.final_answer))
        if self.traces is not None and hasattr(self.traces, "add"):
            self.traces.add(events)

    async def history(self, session_id: str) -> list[Any]:
        return [SimpleNamespace(question=q, answer=a) for q, a in self.turns.get(session_id, [])]


def scripted_factory(agent: ScriptedAgent) -> Callable[[Any], Any]:
    """An ``agent_factory`` for the app that yields ``agent``."""

    @asynccontextmanager
    async def factory(settings: Any) -> AsyncIterator[ScriptedAgent]:
        yield agent

    return factory


# ---- in-memory stores with fixed timestamps (snapshot tests, screenshots) -------------------


class MemoryFacts:
    def __init__(self) -> None:
        texts = [("QLoRA quantizes the frozen base model to 4-bit NormalFloat (NF4).", True, 4),
                 ("LoRA reduces GPU memory by 3x compared with full fine-tuning of GPT-3 175B.", False, 2),
                 ("DPO optimizes preferences without a separate reward model.", False, 1),
                 ("Guanaco reaches 99.3% of ChatGPT on the Vicuna benchmark.", False, 0)]
        self.rows = {i + 1: SimpleNamespace(id=i + 1, content=c, pinned=p, recall_count=r, created=T0 - 86400 * (4 - i),
                                            updated=T0 - 86400 * (4 - i), last_recalled=None, source_question="",
                                            session_id="s001") for i, (c, p, r) in enumerate(texts)}

    def list(self, limit: int | None = None, query: str | None = None) -> list[Any]:
        rows = sorted(self.rows.values(), key=lambda f: (not f.pinned, -f.updated))
        if query:
            rows = [f for f in rows if query.lower() in f.content.lower()]
        return rows[:limit] if limit else rows

    def get(self, fact_id: int) -> Any:
        return self.rows.get(fact_id)

    def add(self, text: str, pinned: bool = False) -> Any:
        fid = max(self.rows, default=0) + 1
        self.rows[fid] = SimpleNamespace(id=fid, content=text, pinned=pinned, recall_count=0, created=T0, updated=T0,
                                         last_recalled=None, source_question="", session_id="")
        return self.rows[fid]

    def edit(self, fact_id: int, text: str) -> Any:
        self.rows[fact_id].content = text
        return self.rows[fact_id]

    def delete(self, fact_id: int) -> bool:
        return self.rows.pop(fact_id, None) is not None

    def pin(self, fact_id: int) -> Any:
        self.rows[fact_id].pinned = True
        return self.rows[fact_id]

    def unpin(self, fact_id: int) -> Any:
        self.rows[fact_id].pinned = False
        return self.rows[fact_id]


class MemorySessions:
    def __init__(self) -> None:
        self.rows = {s.id: s for s in (
            SimpleNamespace(id="s001", title="Compare LoRA and QLoRA in memory use and accuracy", created=T0,
                            updated=T0 + 60, turn_count=2),
            SimpleNamespace(id="s002", title="How does DPO differ from RLHF?", created=T0 - 7200,
                            updated=T0 - 3600, turn_count=1))}

    def list(self, limit: int | None = None) -> list[Any]:
        return sorted(self.rows.values(), key=lambda s: -s.updated)

    def get(self, session_id: str) -> Any:
        return self.rows.get(session_id)

    def rename(self, session_id: str, title: str) -> Any:
        self.rows[session_id].title = title
        return self.rows[session_id]

    def delete(self, session_id: str, checkpoints_path: Any = None) -> bool:
        return self.rows.pop(session_id, None) is not None


class MemoryTraces:
    def __init__(self) -> None:
        self.details: dict[str, Any] = {}
        self.add(comparative_turn("s001", "trace-compare"))
        self.add(follow_up_turn("s001", "trace-follow"))

    def add(self, events: list[Any]) -> None:
        first, last = events[0], events[-1]
        result = getattr(last, "result", None)
        self.details[first.turn_id] = SimpleNamespace(
            trace_id=first.turn_id, session_id=first.session_id, question=first.question,
            intent=result.intent.type if result and result.intent else None,
            strategy=result.strategy if result else "", started=first.ts, finished=last.ts,
            duration_ms=round((last.ts - first.ts) * 1000, 3), retries=result.retry_count if result else 0,
            llm_calls=0, error=getattr(last, "error", None), events=list(events))

    def list(self, session_id: str | None = None, limit: int | None = 50) -> list[Any]:
        rows = sorted(self.details.values(), key=lambda d: -d.started)
        return [d for d in rows if session_id is None or d.session_id == session_id][:limit]

    def resolve(self, trace_id: str) -> str | None:
        hits = [k for k in self.details if k.startswith(trace_id)]
        return hits[0] if len(hits) == 1 else None

    def get(self, trace_id: str) -> Any:
        return self.details.get(trace_id)


def memory_stores(settings: Any = None) -> Any:
    """A ``stores_factory`` with fixed facts, sessions and traces."""
    return SimpleNamespace(facts=MemoryFacts(), sessions=MemorySessions(), traces=MemoryTraces(), checkpoints=None)
