"""A survey question's first search is spread over papers: the exploratory strategy asks the hub for
at most ``SURVEY_PER_PAPER`` chunks of any one document (``per_doc``) on its first search, the question
itself, beside a plain search of it; its later ReAct searches, a turn scoped to one paper, and a hub whose search does not take
``per_doc`` (an upstream MCP server) get a plain search. The hub side is tested in
tests/hub/test_search_per_doc.py; here a stand-in at the hub edge records what the strategy asks."""

from __future__ import annotations

from types import SimpleNamespace

from core.config import Settings
from core.state import AgentState
from core.strategies.exploratory import SURVEY_PER_PAPER, act_node
from core.telemetry import capture


class RecordingHub:
    def __init__(self, params: set[str]):
        self.params, self.calls = params, []

    def searches_by(self, param: str) -> bool:
        return param in self.params

    async def search(self, query, top_k=5, collection=None, **scope):
        self.calls.append((query, top_k, scope))
        return []


async def _act(hub, queries, doc_id=None, refine=()):
    ctx = SimpleNamespace(hub=hub, settings=Settings(), collection="papers", doc_id=doc_id)
    state = AgentState(question="Which papers here use tidal ledgers?", retrieval_queries=queries,
                       refine_queries=list(refine))
    with capture(lambda e: None):
        await act_node(state, SimpleNamespace(context=ctx))
    return hub.calls[-1]


async def test_the_first_search_is_capped_per_paper_and_later_ones_are_not():
    hub = RecordingHub({"doc_id", "topic", "per_doc"})
    await _act(hub, ["Which papers here use tidal ledgers?"])
    k = Settings().agent.broad_top_k
    # which papers bear on it, and the best chunks whatever their paper: a question on one paper's topic
    # would otherwise get only that paper's SURVEY_PER_PAPER best chunks (a table's rows, say)
    assert hub.calls == [("Which papers here use tidal ledgers?", k, {"per_doc": SURVEY_PER_PAPER}),
                         ("Which papers here use tidal ledgers?", k, {})]
    _, _, later = await _act(hub, ["Which papers here use tidal ledgers?", "tidal ledger replicas"])
    assert later == {} and len(hub.calls) == 3


async def test_no_cap_for_a_hub_without_it_or_a_turn_on_one_paper():
    _, _, upstream = await _act(RecordingHub({"doc_id"}), ["Which papers here use tidal ledgers?"])
    assert upstream == {}
    _, _, scoped = await _act(RecordingHub({"doc_id", "per_doc"}), ["Which papers here use tidal ledgers?"],
                              doc_id="quokka")
    assert "per_doc" not in scoped and scoped.get("doc_id") == "quokka"


async def test_a_retrys_first_search_is_the_critics_query_and_is_not_capped():
    """A retry starts its searches anew with the critic's query ("Quokka ledger replica count"), which
    asks for one paper's detail: it is searched plainly."""
    hub = RecordingHub({"doc_id", "per_doc"})
    _, _, scope = await _act(hub, ["Quokka ledger replica count"], refine=["Quokka ledger replica count"])
    assert scope == {}
