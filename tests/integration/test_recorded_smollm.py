"""The LLM brain on real weak models' outputs, recorded from a live llama-cpp-python server and
replayed by a local HTTP server (:mod:`tests.support.openai_replay`): Qwen2.5-Coder-0.5B-Instruct
(the project's reference LLM) and SmolLM2-135M-Instruct (the weak-model robustness check).

The five questions (the four demo questions and one the knowledge base holds no evidence for) run
through the real agent with ``--llm openai`` settings and the bundled hub as an MCP process. What a
weak model must never do to the user is checked on what it really answered:

- every citation in a final answer passes the claim support check;
- the no-evidence question is declined;
- a forced pass is shown as such (``ask`` output, ``ask --json``, the line the app shows);
- no junk query (a citation marker, ``null``, a format word, an empty string) reaches the hub;
- no entity is a format word;
- every request the agent made was in the cassette (else it must be re-recorded:
  ``python -m tests.support.record_llm --model MODEL ...``).
"""

from __future__ import annotations

import asyncio
import re

import pytest

from core.brains.llm.checks import FORMAT_WORDS
from core.citations import claim_support
from tests.integration.test_strategies_offline import DEMO
from tests.support.openai_replay import ReplayServer
from tests.support.record_llm import MODELS, NO_EVIDENCE, QUESTIONS, cassette_for, llm_settings, run_questions

ABSTAIN_RE = re.compile(r"knowledge base (?:holds|has|contains) no evidence|no evidence in the knowledge base", re.I)
JUNK_QUERY_RE = re.compile(r"^\s*(\[\d+\]|\(none\)|null|none|reformulated_query)?\s*$", re.I)


@pytest.fixture(scope="module", params=MODELS)
def replayed(request):
    cassette = cassette_for(request.param)
    if not cassette.is_file():
        pytest.skip(f"{cassette.name} is not recorded: python -m tests.support.record_llm --model {request.param} "
                    "--gguf MODEL.gguf --llama-python PY (tests/support/record_llm.py)")
    with ReplayServer(cassette) as server:
        turns = asyncio.run(run_questions(llm_settings(server.base_url, request.param)))
    return server, dict(zip(QUESTIONS, turns))


def test_every_request_was_recorded_and_every_turn_finished(replayed):
    server, turns = replayed
    assert server.misses == [], "re-record the cassette: " + "; ".join(server.misses[:3])
    assert server.hits > 0
    for question, turn in turns.items():
        assert turn.last.kind == "turn_finished", (question, getattr(turn.last, "error", turn.last))
        assert turn.result.llm_calls > 0, question


@pytest.mark.parametrize("question", list(DEMO))
def test_every_citation_passes_the_support_check(replayed, question):
    result = replayed[1][question].result
    supported, cited = claim_support(result.final_answer, result.sources)
    assert supported == cited, f"{cited - supported} of {cited} cited claims unsupported:\n{result.final_answer}"
    markers = {int(n) for n in re.findall(r"\[(\d+)\]", result.final_answer)}
    assert markers <= {s.index for s in result.sources}, "a marker cites no listed source"


def test_the_no_evidence_question_is_declined(replayed):
    # SmolLM2 invents "The boiling point of tungsten is 4,820 Kelvin." when asked to write over
    # irrelevant chunks; abstention is brain-independent, so no synthesis call is made for it
    result = replayed[1][NO_EVIDENCE].result
    assert result.sources == []
    assert ABSTAIN_RE.search(result.final_answer), result.final_answer


def test_every_forced_pass_is_shown_as_such(replayed, capsys, monkeypatch):
    from core.tracing.describe import forced_pass
    from paperpilot_tui.cli.ask import result_json
    from paperpilot_tui.cli.ask_render import render_result

    monkeypatch.setenv("COLUMNS", "240")  # the panel title (with "(forced)") is not cut short
    for question, turn in replayed[1].items():
        result = turn.result
        capsys.readouterr()
        render_result(result)
        shown = " ".join(capsys.readouterr().out.split())
        forced = bool(result.critic and result.critic.forced)
        assert ("forced pass:" in shown) == forced, (question, shown)
        assert ("(forced)" in shown) == forced, question
        assert bool(forced_pass(result)) == forced  # the line the app's chat shows
        assert (result_json(result)["critic"] or {}).get("forced", False) == forced


def test_no_junk_query_reaches_the_hub(replayed):
    for question, turn in replayed[1].items():
        queries = [e.query for e in turn.of("retrieval_started")]
        assert queries, question
        for query in queries:
            assert not JUNK_QUERY_RE.fullmatch(query), (question, query)
            assert query.strip().lower() not in FORMAT_WORDS, (question, query)
            assert not re.search(r"\[\d+\]", query), (question, query)


def test_entities_are_never_format_words(replayed):
    for question, turn in replayed[1].items():
        intent = turn.result.intent
        entities = [*(intent.entities if intent else []), *(e.entity for e in turn.of("retrieval_started") if e.entity)]
        for entity in entities:
            assert entity.strip() and entity.strip().lower() not in FORMAT_WORDS, (question, entity)
