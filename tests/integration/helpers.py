"""Run real turns: offline brain, the bundled hub as a real MCP stdio server process."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.agent import open_agent
from core.config import Settings, load_settings
from core.events import Event, RetrievalFinished, TurnResult


@dataclass
class Turn:
    events: list[Event] = field(default_factory=list)

    @property
    def last(self) -> Event:
        return self.events[-1]

    @property
    def result(self) -> TurnResult:
        assert self.last.kind == "turn_finished", getattr(self.last, "error", self.last)
        return self.last.result

    def of(self, kind: str) -> list:
        return [e for e in self.events if e.kind == kind]

    def retrieved_ids(self) -> set[str]:
        return {cid for e in self.events if isinstance(e, RetrievalFinished) for cid in e.chunk_ids}


def settings(**agent_overrides) -> Settings:
    s = load_settings(use_user_file=False)
    for k, v in agent_overrides.items():
        setattr(s.agent, k, v)
    return s


async def ask_all(questions: list[str], s: Settings | None = None, session: str | None = None,
                  persist: bool = False, brain=None, setup=None) -> list[Turn]:
    """Run questions in one open agent (offline brain unless given); ``setup(agent)`` runs first."""
    from core.brains.offline.brain import OfflineBrain

    s = s or settings()
    turns = []
    async with open_agent(s, brain=brain or OfflineBrain(s), persist=persist) as agent:
        if setup:
            await setup(agent)
        for q in questions:
            t = Turn()
            async for ev in agent.run_turn(q, session):
                t.events.append(ev)
            t.events[-1:-1] = await agent.settle()  # the write after the answer: where its trace puts it
            turns.append(t)
    return turns


def papers_home(tmp_path, monkeypatch, papers: dict[str, str], collection: str) -> Settings:
    """Settings of a private home (``PAPERPILOT_HOME`` under ``tmp_path``) whose ``collection`` holds
    ``papers`` (file name -> text), ingested without vectors (the hub embeds at its start); the rule
    router, so routing does not vary with the adapter. Memory stays at its default (on)."""
    from core.hub.ingest import Ingestor
    from core.hub.store import HubStore

    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in papers.items():
        (docs / name).write_text(text, encoding="utf-8")
    s = load_settings(use_user_file=False)
    s.agent.router = "rules"
    s.mcp.collection = collection
    store = HubStore(s.paths.resolve(s.paths.hub_db))
    try:
        assert len(Ingestor(store, embed=False).ingest(sorted(docs.iterdir()), collection).added) == len(papers)
    finally:
        store.close()
    return s
