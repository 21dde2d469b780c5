"""All four strategies, the no-evidence path, retries and the forced pass — offline brain, real hub."""

from __future__ import annotations

import asyncio

import pytest

from tests.integration.helpers import ask_all, settings

DEMO = {
    "What rank does LoRA use by default?": "simple",
    "Compare LoRA and QLoRA in memory use and accuracy": "comparative",
    "How does QLoRA build on LoRA to fine-tune a 65B model on a single GPU?": "multi_hop",
    "Trace how alignment methods evolved from RLHF to DPO": "exploratory",
}


@pytest.fixture(scope="module")
def demo_turns():
    return dict(zip(DEMO, asyncio.run(ask_all(list(DEMO)))))


@pytest.mark.parametrize("question", list(DEMO))
def test_demo_question_takes_its_strategy_and_cites_retrieved_chunks(demo_turns, question):
    turn = demo_turns[question]
    r = turn.result
    assert r.strategy == DEMO[question]
    assert r.final_answer.strip()
    assert r.sources, "a demo answer must cite sources"
    assert {s.chunk_id for s in r.sources} <= turn.retrieved_ids()
    assert [s.index for s in r.sources] == list(range(1, len(r.sources) + 1))
    assert r.critic is not None and r.critic.passed
    # Every main node ran, in order, and was timed.
    started = [e.node for e in turn.of("node_started") if e.graph == "main"]
    assert started[:3] == ["load_memory", "route", "slot_fill"] and started[-2:] == ["save_memory", "format_output"]
    assert DEMO[question] in started and "critic" in started
    assert all(e.duration_ms >= 0 for e in turn.of("node_finished"))


def test_comparative_is_rewoo_one_parallel_retrieval_per_entity(demo_turns):
    turn = demo_turns["Compare LoRA and QLoRA in memory use and accuracy"]
    entities = {e.entity for e in turn.of("retrieval_started")}
    assert {"LoRA", "QLoRA"} <= entities
    # ReWOO: no brain judgement between planning and synthesis inside the strategy node.
    assert not turn.of("thought") and not turn.of("sufficiency")
    assert "|" in turn.result.final_answer and "Memory" in turn.result.final_answer


def test_multi_hop_plans_and_executes_steps(demo_turns):
    turn = demo_turns["How does QLoRA build on LoRA to fine-tune a 65B model on a single GPU?"]
    plans = turn.of("plan_updated")
    assert plans and len(plans[0].sub_questions) >= 2
    sub_nodes = [e.node for e in turn.of("node_started") if e.graph == "multi_hop"]
    assert sub_nodes[0] == "plan" and "execute" in sub_nodes and "replan" in sub_nodes
    assert sub_nodes[-1] == "synthesize"
    assert sub_nodes.count("execute") == len(turn.result.intent and plans[-1].sub_questions)


def test_exploratory_react_loop_is_driven_by_sufficiency(demo_turns):
    turn = demo_turns["Trace how alignment methods evolved from RLHF to DPO"]
    runs: list[list[str]] = [[]]  # the first ReAct run, then one per critic retry
    for event in turn.events:
        if event.kind == "retry":
            runs.append([])
        elif event.kind == "sufficiency":
            runs[-1].append(event.judgement.level)
    assert len(runs) <= 1 + settings().agent.max_retries
    for levels in runs:
        assert 1 <= len(levels) <= settings().agent.max_react_steps
        # Each run stops at its first fully sufficient judgement, or at the step bound.
        assert levels[-1] == "fully_sufficient" or len(levels) == settings().agent.max_react_steps
        assert all(level != "fully_sufficient" for level in levels[:-1])
    assert turn.of("thought")


def test_an_exploratory_search_reaches_broad_top_k_chunks_and_a_factual_one_top_k():
    """A survey question spans many papers: each of its ReAct searches asks the hub for
    ``agent.broad_top_k`` chunks, a question about one fact for ``agent.top_k``."""
    s = settings(top_k=3, broad_top_k=7)
    broad, narrow = asyncio.run(ask_all(["Give me an overview of the methods in the collection for making fine-tuning cheaper.",
                                         "What rank does LoRA use by default?"], s))
    assert broad.result.strategy == "exploratory" and narrow.result.strategy == "simple"
    assert max(len(e.chunk_ids) for e in broad.of("retrieval_finished")) == 7
    assert max(len(e.chunk_ids) for e in narrow.of("retrieval_finished")) == 3


def test_question_outside_the_corpus_gets_no_evidence_answer():
    (turn,) = asyncio.run(ask_all(["What is the boiling point of tungsten?"]))
    r = turn.result
    assert "no evidence" in r.final_answer.lower()
    assert r.sources == []


def test_failing_critic_retries_with_feedback_then_forces_a_pass():
    s = settings(max_retries=2)
    (turn,) = asyncio.run(ask_all(["Compare LoRA and BERT in memory use and accuracy"], s, persist=True))
    r = turn.result
    retries = turn.of("retry")
    verdicts = turn.of("critic_verdict")
    # each attempt is judged; the retries end at max_retries, or earlier, with one more (forced) verdict,
    # when the next retry's refinement has nothing new to search
    stopped = [n for n in turn.of("notice") if "would repeat the same searches" in n.message]
    assert 1 <= len(retries) == r.retry_count <= 2
    assert len(verdicts) == len(retries) + 1 + len(stopped) and (stopped or len(retries) == 2)
    assert r.critic.forced and r.critic.passed
    assert not verdicts[0].verdict.passed and verdicts[0].verdict.feedback
    # Reflexion: the critic's feedback is carried into the retry and changes what is retrieved.
    assert retries[0].feedback
    first_queries = {e.query for e in turn.events[: turn.events.index(retries[0])] if e.kind == "retrieval_started"}
    later_queries = {e.query for e in turn.events[turn.events.index(retries[0]):] if e.kind == "retrieval_started"}
    assert later_queries - first_queries
    # A forced pass is never memorized.
    written = turn.of("memory_written")
    assert written and written[-1].facts == [] and "forced" in written[-1].skipped_reason
