"""Run research calls through a real agent and check what came out."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core.agent import open_agent
from core.brains.offline.brain import OfflineBrain
from core.citations import claim_support
from core.research.types import ResearchReview


@dataclass
class Run:
    events: list = field(default_factory=list)
    searched: set[str] = field(default_factory=set)  # every chunk id the hub returned in this call
    queries: list[str] = field(default_factory=list)

    def of(self, kind: str) -> list:
        return [e for e in self.events if e.kind == kind]

    @property
    def last(self) -> Any:
        return self.events[-1]


class RecordingHub:
    """The agent's real hub client, recording each search's query and returned chunk ids."""

    def __init__(self, hub: Any, run: Run) -> None:
        self._hub, self._run = hub, run

    def __getattr__(self, name: str) -> Any:
        return getattr(self._hub, name)

    async def search(self, query: str, top_k: int = 5, collection: str | None = None):
        found = await self._hub.search(query, top_k, collection)
        self._run.queries.append(query)
        self._run.searched.update(c.chunk_id for c in found)
        return found


async def research(settings, topic=None, session=None, brain=None, **kw) -> Run:
    """One run_research call in a freshly opened agent (a new process would see the same stores)."""
    run = Run()
    async with open_agent(settings, brain=brain or OfflineBrain(settings)) as agent:
        agent.hub = RecordingHub(agent.hub, run)
        async for ev in agent.run_research(topic, session, **kw):
            run.events.append(ev)
    return run


def assert_citations_valid(review: ResearchReview, retrieved: set[str]) -> None:
    """Every [n] names a listed source, every source was retrieved, every (claim, source) pair is supported."""
    body = review.markdown.split("## References")[0]
    cited = {int(n) for group in re.findall(r"\[(\d+(?:\s*,\s*\d+)*)\]", body) for n in group.split(",")}
    assert cited, "the review cites nothing"
    assert cited == {s.index for s in review.sources}
    assert {s.chunk_id for s in review.sources} <= retrieved
    supported, pairs = claim_support(body, review.sources)
    assert pairs and supported == pairs, f"{pairs - supported} unsupported (claim, source) pairs"
