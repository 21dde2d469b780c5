"""Stage K end to end: the offline brain, the bundled hub as a real MCP stdio server, real SQLite
stores, and a loopback server replaying arXiv's, Tavily's and SearXNG's real response formats.

A question the corpus cannot answer gets an answer that cites the provider's URLs and the trace
says ``used_web_fallback``; after a forced pass a failing search (401, 429, no reply, malformed
reply) is one notice and the local answer is kept; nothing is memorized from a forced pass."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import SecretStr

from core.agent import open_agent
from core.brains.offline import OfflineBrain
from core.events import WebSearched
from core.tracing.describe import describe
from tests.integration.helpers import Turn, settings
from tests.support.web_replay import WebReplay

OUTSIDE = "What is Mamba's selective state space model?"  # no bundled note mentions Mamba
FORCED = "Compare LoRA and BERT in memory use and accuracy"  # the critic fails it: BERT is not in the corpus


@pytest.fixture(scope="module")
def web():
    with WebReplay(stall=1.5) as server:
        yield server


def configured(web: WebReplay, tmp_path, provider: str = "arxiv", **agent):
    s = settings(**agent)
    s.agent.router = "rules"
    s.paths.state_db, s.paths.checkpoints_db = str(tmp_path / "state.sqlite3"), str(tmp_path / "cp.sqlite3")
    fallback = s.agent.web_search_fallback
    fallback.enabled, fallback.provider, fallback.timeout = True, provider, 1.0
    s.arxiv.api_url = f"{web.url}/arxiv/api/query"
    if provider != "arxiv":
        fallback.url, fallback.api_key = f"{web.url}/{provider}", SecretStr("tvly-test-key")
    return s


async def turns(s, questions: list[tuple[str, str | None]], web: WebReplay, persist: bool = True) -> list[Turn]:
    """Each question with ``web.fail`` set for the provider as given (None: no failure)."""
    out = []
    async with open_agent(s, brain=OfflineBrain(s), persist=persist) as agent:
        for question, failure in questions:
            web.fail = {s.agent.web_search_fallback.provider: failure} if failure else {}
            turn = Turn()
            async for ev in agent.run_turn(question):
                turn.events.append(ev)
            turn.events[-1:-1] = await agent.settle()  # the write after the answer: where its trace puts it
            out.append(turn)
    web.fail = {}
    return out


def test_a_question_the_corpus_cannot_answer_is_answered_from_arxiv_and_memorized(web, tmp_path):
    web.requests.clear()
    (turn,) = asyncio.run(turns(configured(web, tmp_path), [(OUTSIDE, None)], web))
    r = turn.result
    assert r.used_web_fallback and r.web_query and r.web_result_count >= 1
    assert "no evidence" not in r.final_answer.lower() and "[1]" in r.final_answer
    assert r.sources and all(s.url and s.url.startswith("http://arxiv.org/abs/") for s in r.sources)
    assert r.sources[0].url == "http://arxiv.org/abs/2312.00752v2" and "Mamba" in r.sources[0].title
    (searched,) = turn.of("web_search")
    assert searched.used and searched.provider == "arxiv" and "used_web_fallback" in describe(searched)
    assert "all:mamba" in web.requests[-1]["query"]["search_query"]
    # the web-backed answer passed the critic on its merits: its facts are memorized
    verdict = turn.of("critic_verdict")[-1].verdict
    assert verdict.passed and not verdict.forced
    written = turn.of("memory_written")[-1]
    assert written.facts and not written.skipped_reason and any("Mamba" in f or "SSM" in f for f in written.facts)


def test_after_a_forced_pass_search_errors_keep_the_local_answer_and_memorize_nothing(web, tmp_path):
    s = configured(web, tmp_path, max_retries=0)
    failures = ["401", "429", "timeout", "malformed", None]
    done = asyncio.run(turns(s, [(FORCED, f) for f in failures], web))
    expected = {"401": "arxiv: HTTP 401 unauthorized", "429": "rate limited (HTTP 429); the provider asks to wait 30 s",
                "timeout": "arxiv: no reply within 1 s", "malformed": "arxiv: malformed reply (not Atom XML"}
    for failure, turn in zip(failures, done):
        r = turn.result
        assert r.critic.forced and not r.used_web_fallback, failure
        assert all(s.url is None for s in r.sources)  # the local answer, from the knowledge base
        (searched,) = turn.of("web_search")
        assert turn.events.index(searched) > turn.events.index(turn.of("critic_verdict")[0])
        if failure:
            assert expected[failure] in searched.error
            notes = [n for n in r.notices if n.startswith("web search fallback:")]
            assert len(notes) == 1 and "\n" not in notes[0] and notes[0].endswith("keeping the local answer")
        else:  # the search worked but the answer written from it did not satisfy the critic either
            assert searched.result_count >= 1 and not searched.used
        written = turn.of("memory_written")[-1]
        assert written.facts == [] and "forced" in written.skipped_reason


@pytest.mark.parametrize("provider, url", [("tavily", "https://arxiv.org/abs/2312.00752"),
                                           ("searxng", "https://arxiv.org/abs/2312.00752")])
def test_tavily_and_searxng_results_back_the_answer(web, tmp_path, provider, url):
    web.requests.clear()
    (turn,) = asyncio.run(turns(configured(web, tmp_path, provider), [(OUTSIDE, None)], web, persist=False))
    r = turn.result
    assert r.used_web_fallback and url in [s.url for s in r.sources]
    request = web.requests[-1]
    if provider == "tavily":
        assert request["method"] == "POST" and request["auth"] == "Bearer tvly-test-key"
        assert b'"query"' in request["body"]
    else:
        assert request["method"] == "GET" and request["query"]["format"] == "json"


def test_disabled_by_default_no_request_and_no_node(web):
    from core.graph import build_graph
    from core.tools.web_search import create_web_search_client

    s = settings()
    assert not s.agent.web_search_fallback.enabled and create_web_search_client(s) is None
    assert "web_fallback" not in build_graph().get_graph().nodes
    s.agent.web_search_fallback.enabled = True
    s.agent.web_search_fallback.provider = "tavily"
    assert create_web_search_client(s) is None  # no key
    s.agent.web_search_fallback.provider = "searxng"
    assert create_web_search_client(s) is None  # no URL
    s.agent.web_search_fallback.provider = "arxiv"
    assert create_web_search_client(s).api_url == "http://export.arxiv.org/api/query"
    assert "web_fallback" in build_graph(web_fallback=s.agent.web_search_fallback).get_graph().nodes


def test_the_trace_event_round_trips_and_folds_into_the_result():
    from core.events import event_from_dict
    from core.tracing.fold import fold

    ev = WebSearched(provider="arxiv", query="mamba", result_count=2, urls=["http://arxiv.org/abs/2312.00752v2"],
                     used=True)
    again = event_from_dict(ev.model_dump())
    assert again == ev
    result = fold([again]).to_result()
    assert (result.used_web_fallback, result.web_query, result.web_result_count) == (True, "mamba", 2)


def test_ask_json_cites_arxiv_urls_and_offline_sends_nothing(web, tmp_path):
    """``paperpilot ask --json`` as a user runs it (a subprocess); ``--offline`` keeps the fallback off."""
    import json

    from tests.integration.test_cli import paperpilot

    config = tmp_path / "settings.yaml"
    config.write_text("agent:\n  router: rules\n  web_search_fallback:\n    enabled: true\nmemory:\n  enabled: false\n"
                      f"arxiv:\n  api_url: {web.url}/arxiv/api/query\n")
    web.requests.clear()
    run = paperpilot("--offline", "ask", "--json", "--config", str(config), OUTSIDE)
    local = json.loads(run.stdout)
    assert run.returncode == 0 and web.requests == [] and not local["used_web_fallback"] and local["sources"] == []
    run = paperpilot("ask", "--json", "--config", str(config), OUTSIDE)
    answer = json.loads(run.stdout)
    assert run.returncode == 0 and answer["used_web_fallback"] and answer["web_result_count"] >= 1
    assert answer["sources"][0]["url"] == "http://arxiv.org/abs/2312.00752v2"
