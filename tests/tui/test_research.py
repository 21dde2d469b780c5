"""Deep research in the app, through the real app with Pilot: the mode switch, the clarifying
questions form (send, skip), the outline editor (remove, add, reorder, importance, raw JSON and its
error line) and what it hands ``run_research``, per-point progress, the streamed review with its
sources by point, the review's export; an SVG snapshot of each stage.

The agent is a scripted double that speaks the ``run_research`` contract (core/events.py research
events) until the core's deep research can be recorded."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager

import pytest

from core.events import (
    ClarificationAsked, OutlineEdited, OutlineProposed, PointSearched, ResearchStageChanged, ResearchStarted,
    ResearchWaiting, ReviewFinished, TokenDelta,
)
from core.research.types import ClarifyingQuestion, KnowledgePoint, Outline, PointCoverage, ResearchReview
from core.types import Source
from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.screens.research_export import review_markdown
from paperpilot_tui.widgets.chat import Answer, ChatPane, Question
from paperpilot_tui.widgets.research import ResearchProgress, ResearchSources
from paperpilot_tui.widgets.trace import TracePane
from tests.tui.conftest import real_agent_factory, settle, wait_until
from tests.tui.stub_hub import StubHub

QUESTIONS = [ClarifyingQuestion(id=1, question="Which methods should the review cover?", purpose="scope"),
             ClarifyingQuestion(id=2, question="Which years matter most?", purpose="time range")]
OUTLINE = Outline(title="Parameter-efficient fine-tuning of large language models", knowledge_points=[
    KnowledgePoint(id="KP1", category="Core Concepts", topic="Low-rank adaptation (LoRA)",
                   search_keywords=["LoRA", "low-rank"], importance="high"),
    KnowledgePoint(id="KP2", category="Technical Methods", topic="Quantized fine-tuning (QLoRA)",
                   search_keywords=["QLoRA", "4-bit"], importance="high"),
    KnowledgePoint(id="KP3", category="Comparisons", topic="Memory and accuracy trade-offs",
                   search_keywords=["memory", "accuracy"], importance="medium"),
], search_strategy="one search per point")
SOURCES = [
    Source(index=1, chunk_id="c0", title="LoRA: Low-Rank Adaptation of Large Language Models",
           breadcrumb="LoRA > Abstract", page=1, text="LoRA freezes the pretrained model weights."),
    Source(index=2, chunk_id="c1", title="QLoRA: Efficient Finetuning of Quantized LLMs",
           breadcrumb="QLoRA > Abstract", page=1, text="QLoRA finetunes a 65B model on a single 48GB GPU."),
    Source(index=3, chunk_id="c2", title="QLoRA: Efficient Finetuning of Quantized LLMs",
           breadcrumb="QLoRA > Results", page=2, text="QLoRA accuracy matches 16-bit LoRA."),
]
REVIEW_MD = ("# Parameter-efficient fine-tuning\n\n## 1. Introduction\n\nLoRA freezes the pretrained weights and "
             "trains low-rank matrices [1]. QLoRA adds 4-bit quantization to fit a 65B model on one GPU [2].\n\n"
             "## 2. Trade-offs\n\nQLoRA's accuracy matches 16-bit LoRA [3].\n")
TOPIC = "parameter-efficient fine-tuning"


def review_for(outline: Outline) -> ResearchReview:
    """The review of the searched outline: point n keeps source n (when there is one)."""
    points = [PointCoverage(point_id=p.id, topic=p.topic, category=p.category, importance=p.importance,
                            source_indices=[n] if n <= len(SOURCES) else [], covered=n <= len(SOURCES))
              for n, p in enumerate(outline.knowledge_points, 1)]
    return ResearchReview(title=outline.title, markdown=REVIEW_MD, sources=SOURCES, points=points,
                          gaps=["no paper compares adapters beyond LoRA"])


class ScriptedResearchAgent:
    """Speaks ``run_research`` as the core promises: a topic → questions and a wait for answers;
    answers → the outline and a wait for it; an outline → one ``PointSearched`` per point (the last
    fails), the review streamed as ``TokenDelta(node="review")``, ``ReviewFinished``. ``gate`` holds
    the search after the first point."""

    brain_name = "offline (scripted)"
    hub_status = "hub (scripted)"
    collection = "default"

    def __init__(self) -> None:
        self.calls: list[dict] = []
        self.gate: asyncio.Event | None = None
        self.paused = asyncio.Event()
        self.topic = ""

    async def run_turn(self, question, session_id=None):
        raise AssertionError("research mode must not ask a question")
        yield  # pragma: no cover

    async def history(self, session_id):
        return []

    async def run_research(self, topic=None, session_id=None, *, clarify=True, answers=None, outline=None,
                           confirm=False, collection=None):
        self.calls.append({"topic": topic, "session_id": session_id, "clarify": clarify, "answers": answers,
                           "outline": outline, "confirm": confirm})
        if topic is not None:
            self.topic = topic
            yield ResearchStarted(topic=topic, session_id=session_id, stage="initial")
            yield ResearchStageChanged(stage="clarification", previous="initial")
            yield ClarificationAsked(questions=QUESTIONS)
            yield ResearchWaiting(stage="clarification", needs="answers")
        elif answers is not None:
            yield ResearchStarted(topic=self.topic, session_id=session_id, stage="clarification")
            yield ResearchStageChanged(stage="confirmation", previous="clarification")
            yield OutlineProposed(outline=OUTLINE)
            yield ResearchWaiting(stage="confirmation", needs="outline")
        elif outline is not None:
            yield ResearchStarted(topic=self.topic, session_id=session_id, stage="confirmation")
            if outline != OUTLINE:
                yield OutlineEdited(outline=outline)
            yield ResearchStageChanged(stage="searching", previous="confirmation")
            points = outline.knowledge_points
            for n, p in enumerate(points, 1):
                if n == 2 and self.gate is not None:
                    self.paused.set()
                    await self.gate.wait()
                last = n == len(points)
                yield PointSearched(point_id=p.id, topic=p.topic, index=n, total=len(points), candidates=0 if last else 8,
                                    kept=0 if last else 3 - n, duplicates=1 if n == 2 else 0, duration_ms=120.0,
                                    error="hub timeout" if last else None)
            yield ResearchStageChanged(stage="review", previous="searching")
            for part in REVIEW_MD.split(" "):
                yield TokenDelta(text=part + " ", node="review")
            yield ReviewFinished(review=review_for(outline))


def research_app(settings, agent: ScriptedResearchAgent | None = None) -> tuple[PaperPilotApp, ScriptedResearchAgent]:
    agent = agent or ScriptedResearchAgent()

    @asynccontextmanager
    async def factory(_settings):
        yield agent

    app = PaperPilotApp(settings, agent_factory=factory, blink=False)
    app.session.session_id = "r001"  # fixed, for the snapshots
    return app, agent


def screen_name(app) -> str:
    return type(app.screen).__name__


def notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def send_topic(pilot, topic: str = TOPIC) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: app.session.agent is not None and app.session.warm.is_set())
    if not app.research.active:
        await pilot.press("ctrl+r")
    box = app.main_screen.query_one("#chat-input")
    box.focus()
    box.load_text(topic)
    await pilot.press("enter")
    await wait_until(pilot, lambda: screen_name(app) == "ClarifyScreen")


async def to_outline(pilot, skip: bool = True) -> None:
    await send_topic(pilot)
    await pilot.press("ctrl+o" if skip else "ctrl+s")
    await wait_until(pilot, lambda: screen_name(pilot.app) == "OutlineScreen")


async def search(pilot) -> None:
    await to_outline(pilot)
    await pilot.press("ctrl+s")
    await wait_until(pilot, lambda: screen_name(pilot.app) == "MainScreen")


# ---- mode ------------------------------------------------------------------------------------


async def test_ctrl_r_and_the_palette_switch_the_mode_and_the_mode_shows(settings):
    app, agent = research_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main_screen
        box = main.query_one("#chat-input")
        assert not app.research.active and box.placeholder == ""
        await pilot.press("ctrl+r")
        assert app.research.active
        assert "Deep research" in str(box.placeholder) and "ctrl+r back to Ask" in str(box.placeholder)
        assert main.query_one("#chat").border_title == "Chat · Deep research"
        assert main.query_one("#graph-view").research_shown
        await pilot.press("ctrl+r")
        assert not app.research.active and box.placeholder == "" and main.query_one("#chat").border_title == "Chat"
        assert not main.query_one("#graph-view").research_shown
        await pilot.press("ctrl+p")  # the palette offers it under its description
        await wait_until(pilot, lambda: screen_name(app) == "CommandPalette")
        await pilot.press(*"Switch mode")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.research.active)
        assert agent.calls == []


async def test_a_topic_in_research_mode_goes_to_run_research_not_to_a_turn(settings):
    app, agent = research_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await send_topic(pilot)
        assert agent.calls == [{"topic": TOPIC, "session_id": "r001", "clarify": True, "answers": None,
                                "outline": None, "confirm": False}]
        questions = [str(s.content) for s in app.screen.query(".question")]
        assert questions == ["1. Which methods should the review cover?", "2. Which years matter most?"]
        chat = app.main_screen.query_one(ChatPane)
        assert [q.text for q in chat.query(Question)] == [f"Deep research: {TOPIC}"]


# ---- clarifying questions -------------------------------------------------------------------


async def test_the_form_sends_the_typed_answers_by_question_id(settings):
    app, agent = research_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await send_topic(pilot)
        await pilot.press(*"LoRA and QLoRA")
        await pilot.press("enter")  # next question
        assert app.focused.id == "answer-2"
        await pilot.press("ctrl+s")  # the second one left empty: no preference
        await wait_until(pilot, lambda: screen_name(app) == "OutlineScreen")
        assert agent.calls[-1]["answers"] == {1: "LoRA and QLoRA"} and agent.calls[-1]["topic"] is None


async def test_keys_typed_in_one_burst_after_enter_land_in_the_next_answer(settings):
    """tmux send-keys, a paste or a fast typist deliver enter and the next answer together: the
    focus moves on enter itself, not after the keys already queued behind it."""
    from textual import events

    app, agent = research_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await send_topic(pilot)
        burst = [("enter", "\r"), *(("space" if c == " " else c, c) for c in "since 2021"), ("enter", "\r")]
        for key, char in burst:
            app.post_message(events.Key(key, char))
        await wait_until(pilot, lambda: screen_name(app) == "OutlineScreen")  # enter on the last one sends
        assert agent.calls[-1]["answers"] == {2: "since 2021"}


async def test_the_form_fits_an_80_column_terminal(settings):
    app, agent = research_app(settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await send_topic(pilot)
        dialog = app.screen.query_one("#dialog")
        assert dialog.region.x >= 0 and dialog.region.right <= 80, dialog.region
        assert app.screen.query_one("#answer-1").region.right <= dialog.region.right


async def test_at_80x24_the_graph_pane_takes_the_whole_screen_for_the_stages(settings):
    """One pane at a time: the graph gets all of it, and the five stages (15 rows) fit."""
    app, agent = research_app(settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.session.warm.is_set())
        await pilot.press("ctrl+r", "f6")
        await pilot.pause()
        graph = app.main_screen.query_one("#graph")
        assert graph.region.width == 80 and graph.region.height >= 18, graph.region
        for pane in ("trace", "memory"):
            app.main_screen.action_pane(pane)
            await pilot.pause()
            assert app.main_screen.query_one(f"#{pane}").region.width == 80


async def test_skip_sends_no_answers_and_esc_keeps_what_was_typed(settings):
    app, agent = research_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await send_topic(pilot)
        await pilot.press(*"only 2023")
        await pilot.press("escape")  # later: the run waits, the draft is kept
        await wait_until(pilot, lambda: screen_name(app) == "MainScreen")
        assert app.research.waiting == "answers" and len(agent.calls) == 1
        assert "waiting for your answers" in app.main_screen.status.activity
        await app.run_action("research_continue")
        await wait_until(pilot, lambda: screen_name(app) == "ClarifyScreen")
        assert app.screen.query_one("#answer-1").value == "only 2023"
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: screen_name(app) == "OutlineScreen")
        assert agent.calls[-1]["answers"] == {}


# ---- outline editor ---------------------------------------------------------------------------


async def test_outline_edits_change_the_outline_passed_to_run_research(settings):
    app, agent = research_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_outline(pilot)
        assert app.focused.id == "points"
        await pilot.press("down", "d")  # remove KP2
        await pilot.press("a")  # add a point after the highlighted one: the form takes focus
        assert app.focused.id == "topic"
        for field, value in (("topic", "Adapters in vision models"), ("category", "Applications"),
                             ("search_keywords", "ViT, adapter,")):
            box = app.screen.query_one(f"#{field}")
            box.focus()
            await pilot.pause()
            box.value = value  # as typed (typing itself is Textual's Input)
            await pilot.pause()
        app.screen.query_one("#points").focus()
        await pilot.press("i", "i")  # medium → low → high
        await pilot.press("shift+up")  # the new point above KP3
        await pilot.press("k")  # and above KP1
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: len(agent.calls) == 3)
        sent = agent.calls[-1]["outline"]
        assert [(p.id, p.topic, p.category, p.search_keywords, p.importance) for p in sent.knowledge_points] == [
            ("KP4", "Adapters in vision models", "Applications", ["ViT", "adapter"], "high"),
            ("KP1", "Low-rank adaptation (LoRA)", "Core Concepts", ["LoRA", "low-rank"], "high"),
            ("KP3", "Memory and accuracy trade-offs", "Comparisons", ["memory", "accuracy"], "medium"),
        ]
        assert sent.title == OUTLINE.title


async def test_importance_from_the_form_and_an_unchanged_outline_is_sent_as_proposed(settings):
    app, agent = research_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_outline(pilot)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: len(agent.calls) == 3)
        assert agent.calls[-1]["outline"] == OUTLINE


async def test_the_outline_table_shows_each_points_topic_at_80_columns(settings):
    """The topic says what a point is: it comes before the category, which is long and repeats
    (the offline brain names categories after the topic's facets)."""
    from paperpilot_tui.screens.research_outline import OutlineScreen

    facet = "Alignment of large language models"
    outline = OUTLINE.model_copy(update={"knowledge_points": [
        p.model_copy(update={"category": facet}) for p in OUTLINE.knowledge_points]})
    app, agent = research_app(settings)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(OutlineScreen(outline))
        await wait_until(pilot, lambda: screen_name(app) == "OutlineScreen")
        table = app.screen.query_one("#points")
        columns = [(str(c.label), c.get_render_width(table)) for c in table.ordered_columns]
        x = sum(width for _label, width in columns[:[label for label, _ in columns].index("topic")])
        assert x + 12 <= table.scrollable_content_region.width, columns


async def test_raw_json_error_names_the_field_and_keeps_the_text(settings):
    app, agent = research_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_outline(pilot)
        await pilot.press("ctrl+t")
        area = app.screen.query_one("#outline-json")
        assert app.focused is area and '"KP2"' in area.text
        bad = area.text.replace('"importance": "medium"', '"importance": "urgent"')
        area.load_text(bad)
        await pilot.press("ctrl+s")  # refused: the search does not start
        error = app.screen.query_one("#outline-error")
        assert str(error.content).startswith("✗ knowledge_points[2].importance: Input should be 'high', 'medium' or 'low'")
        assert area.text == bad and screen_name(app) == "OutlineScreen" and len(agent.calls) == 2
        await pilot.press("ctrl+t")  # back to the table: refused too, the text stays
        assert app.screen.raw and area.text == bad
        area.load_text(bad.replace('"urgent"', '"low"').replace("Memory and accuracy", "Memory"))
        await pilot.press("ctrl+t")
        assert not app.screen.raw and not error.has_class("-on")
        assert app.screen.query_one("#points").get_row_at(2)[1:4] == ["low", "Memory trade-offs", "Comparisons"]
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: len(agent.calls) == 3)
        assert agent.calls[-1]["outline"].knowledge_points[2].topic == "Memory trade-offs"


async def test_an_empty_outline_cannot_start_a_search(settings):
    app, agent = research_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_outline(pilot)
        await pilot.press("d", "d", "d")
        assert "No knowledge point yet" in str(app.screen.query_one("#outline-hint").content)
        await pilot.press("ctrl+s")
        assert "has no knowledge point" in str(app.screen.query_one("#outline-error").content)
        assert len(agent.calls) == 2


# ---- search, review, export -------------------------------------------------------------------


async def test_progress_per_point_then_the_review_with_sources_by_point(settings):
    agent = ScriptedResearchAgent()
    agent.gate = asyncio.Event()
    app, _ = research_app(settings, agent)
    async with app.run_test(size=(120, 40)) as pilot:
        await search(pilot)
        await wait_until(pilot, lambda: agent.paused.is_set())
        await wait_until(pilot, lambda: app.main_screen.query(ResearchProgress) and
                         app.main_screen.query_one(ResearchProgress).searched == 1)
        progress = app.main_screen.query_one(ResearchProgress)
        assert [(p.point_id, p.line()) for p in progress.points] == [
            ("KP1", "kept 2 of 8"), ("KP2", "searching"), ("KP3", "searching")]
        graph = app.main_screen.query_one("#graph-view")
        assert graph.r_stage == "searching" and graph.r_notes["searching"] == "1/3 points searched"
        assert "searched 1/3" in app.main_screen.status.activity
        agent.gate.set()
        await wait_until(pilot, lambda: app.main_screen.query(ResearchSources))
        await settle(pilot)
        assert [(p.point_id, p.line()) for p in progress.points] == [
            ("KP1", "kept 2 of 8"), ("KP2", "kept 1 of 8, 1 kept under another point"), ("KP3", "error: hub timeout")]
        assert progress.phase.startswith("done")
        answer = app.main_screen.query(Answer).last()
        assert "QLoRA adds 4-bit quantization" in answer.source and "[\\[1\\]](#source-1)" in answer.source
        sources = app.main_screen.query_one(ResearchSources)
        titles = [str(c.title) for c in sources.query("Collapsible")]
        assert titles == ["KP1 Low-rank adaptation (LoRA) · 1 source(s)", "KP2 Quantized fine-tuning (QLoRA) · 1 source(s)",
                          "KP3 Memory and accuracy trade-offs · 1 source(s)"]
        first = sources.query("Collapsible").first()
        assert first.collapsed
        first.query_one("CollapsibleTitle").focus()
        await pilot.press("enter")
        assert not first.collapsed
        assert "[1] LoRA: Low-Rank Adaptation of Large Language Models — LoRA > Abstract · p. 1" in str(
            first.query_one("Contents Static").content)
        assert graph.r_status["review"] == "done" and app.research.waiting is None
        trace = [str(step.title) for step in app.main_screen.query_one(TracePane).steps]
        assert "point 3/3 KP3 “Memory and accuracy trade-offs” → er…" in trace
        assert "■ review: 3 points, 3 source(s), 0 uncovered" in trace
        notes = [str(n.content) for n in app.main_screen.query("ChatNote")]
        assert "questions skipped: the outline comes from the topic alone" in notes
        assert f"outline: {OUTLINE.title} · 3 knowledge point(s)" in notes


async def test_the_review_is_exported_to_the_file_the_user_names(settings, tmp_path):
    app, _ = research_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.run_action("research_export")  # nothing yet: a helpful notice
        await pilot.pause()
        assert any("No review to export yet" in n for n in notices(app))
        await search(pilot)
        await wait_until(pilot, lambda: app.research.review is not None)
        await settle(pilot)
        await app.run_action("research_export")
        await wait_until(pilot, lambda: screen_name(app) == "PromptScreen")
        box = app.screen.query_one("#prompt-input")
        assert box.value.endswith("exports/r001-review.md")
        target = tmp_path / "out" / "review.md"
        box.value = str(target)
        await pilot.press("enter")
        await wait_until(pilot, target.exists)
        text = target.read_text()
        assert text.startswith("# Parameter-efficient fine-tuning of large language models\n")
        assert "QLoRA adds 4-bit quantization to fit a 65B model on one GPU [2]." in text
        assert "- **KP2** Quantized fine-tuning (QLoRA) (high): [2]" in text
        assert "- **[3]** QLoRA: Efficient Finetuning of Quantized LLMs — QLoRA > Results · p. 2 (chunk `c2`)" in text
        assert "- gap: no paper compares adapters beyond LoRA" in text


async def test_esc_cancels_the_search_and_a_new_topic_waits_for_it(settings):
    agent = ScriptedResearchAgent()
    agent.gate = asyncio.Event()
    app, _ = research_app(settings, agent)
    async with app.run_test(size=(120, 40)) as pilot:
        await search(pilot)
        await wait_until(pilot, lambda: agent.paused.is_set())
        box = app.main_screen.query_one("#chat-input")
        box.load_text("another topic")
        await pilot.press("enter")  # refused while the search runs: the text stays
        await pilot.pause()
        assert box.text == "another topic" and len(agent.calls) == 3
        assert any("research step is running" in n for n in notices(app))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.session.busy)
        progress = app.main_screen.query_one(ResearchProgress)
        await wait_until(pilot, lambda: progress.phase == "cancelled")
        assert [p.state for p in progress.points] == ["done", "waiting", "waiting"]
        assert app.main_screen.query_one("#graph-view").r_status["searching"] == "failed"
        assert app.main_screen.status.activity == "cancelled"


async def test_a_new_topic_in_a_session_that_holds_a_research_says_where_that_one_stands(settings):
    class OneResearchPerSession(ScriptedResearchAgent):
        """Like the core: a session keeps its research; another topic resumes it."""

        async def run_research(self, topic=None, session_id=None, **kw):
            if self.calls:
                self.calls.append({"topic": topic})
                yield ResearchStarted(topic=TOPIC, session_id=session_id, stage="clarification")
                yield ClarificationAsked(questions=QUESTIONS)
                yield ResearchWaiting(stage="clarification", needs="answers")
                return
            async for ev in super().run_research(topic, session_id, **kw):
                yield ev

    app, agent = research_app(settings, OneResearchPerSession())
    async with app.run_test(size=(120, 40)) as pilot:
        await send_topic(pilot)
        await pilot.press("escape")
        await wait_until(pilot, lambda: screen_name(app) == "MainScreen")
        await send_topic(pilot, "speculative decoding")
        notes = [str(n.content) for n in app.main_screen.query("ChatNote")]
        assert any(f"already holds the research “{TOPIC}” (clarification)" in n and "ctrl+n starts a new session" in n
                   for n in notes)
        assert app.screen.query_one(".dialog-title").content == f"Deep research: {TOPIC}"


def test_review_markdown_lists_each_point_and_its_sources():
    text = review_markdown(review_for(OUTLINE), TOPIC, "s1", now=0)
    assert "## 1. parameter-efficient fine-tuning" in text
    assert "- **KP1** Low-rank adaptation (LoRA) (high): [1]" in text
    assert text.count("  > ") == 3  # each source's chunk quoted once


async def test_the_real_agent_goes_from_topic_to_review_in_the_app(settings):
    """core.agent's run_research (offline brain, checkpointer, stores) on the stub hub, through every form."""
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()), blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await send_topic(pilot, "Compare LoRA and QLoRA memory use")
        assert len(app.screen.query(".answer")) == len(app.research.questions) > 0
        await pilot.press(*"memory only", "ctrl+s")
        await wait_until(pilot, lambda: screen_name(app) == "OutlineScreen", timeout=60)
        proposed = app.screen.outline
        await pilot.press("d", "ctrl+s")  # the first point removed
        await wait_until(pilot, lambda: app.research.review is not None, timeout=120)
        await settle(pilot)
        review = app.research.review
        kept = [p.id for p in proposed.knowledge_points[1:]]
        assert [p.point_id for p in review.points] == kept and review.sources
        progress = app.main_screen.query_one(ResearchProgress)
        assert [p.point_id for p in progress.points] == kept and progress.searched == len(kept)
        assert app.main_screen.query_one(ResearchSources).review is review
        assert app.main_screen.query(Answer).last().source.startswith(f"# {review.title}")
        trace = [str(step.title) for step in app.main_screen.query_one(TracePane).steps]
        assert any(t.startswith(f"outline edited: {len(kept)} points (+0 −1") for t in trace)
        assert app.main_screen.status.activity.startswith("research · review ready")


# ---- empty states and failures ----------------------------------------------------------------


async def test_continue_with_nothing_waiting_here_asks_the_agent_to_resume_the_session(settings):
    app, agent = research_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.warm.is_set())
        await app.run_action("research_continue")  # e.g. a resumed session whose run waits: the core knows
        await wait_until(pilot, lambda: agent.calls)
        assert agent.calls == [{"topic": None, "session_id": "r001", "clarify": True, "answers": None,
                                "outline": None, "confirm": False}]
        graph = app.main_screen.query_one("#graph-view")
        await pilot.press("ctrl+r")
        assert "send a topic" in str(graph.content.renderables[-1])


async def test_an_agent_without_deep_research_fails_the_run_in_words(settings):
    class AskOnly:  # an agent from before deep research
        brain_name, hub_status, collection = "offline", "hub", "default"

        async def history(self, session_id):
            return []

    app, _ = research_app(settings, AskOnly())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.agent is not None and app.session.warm.is_set())
        await pilot.press("ctrl+r")
        app.main_screen.query_one("#chat-input").load_text(TOPIC)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.main_screen.status.activity == "turn failed")
        notes = [str(n.content) for n in app.main_screen.query("ChatNote")]
        assert any("this agent has no deep research" in n for n in notes)


# ---- snapshots: one per stage -------------------------------------------------------------------


async def _frozen(pilot) -> None:
    from tests.support.screenshots import _freeze

    pilot.app.clear_notifications()
    await _freeze(pilot)


async def _clarify_stage(pilot) -> None:
    await send_topic(pilot)
    await pilot.press(*"LoRA and QLoRA")
    await _frozen(pilot)


async def _outline_stage(pilot) -> None:
    await to_outline(pilot)
    await pilot.press("down")
    await _frozen(pilot)


async def _searching_stage(pilot) -> None:
    agent = pilot.app.research_agent
    agent.gate = asyncio.Event()
    await search(pilot)
    await wait_until(pilot, lambda: agent.paused.is_set())
    await wait_until(pilot, lambda: pilot.app.main_screen.query(ResearchProgress)
                     and pilot.app.main_screen.query_one(ResearchProgress).searched == 1)
    await _frozen(pilot)


async def _review_stage(pilot) -> None:
    await search(pilot)
    await wait_until(pilot, lambda: pilot.app.main_screen.query(ResearchSources))
    await settle(pilot)
    sources = pilot.app.main_screen.query_one(ResearchSources)
    sources.query("Collapsible").first().collapsed = False
    pilot.app.main_screen.query_one("#chat-log").scroll_end(animate=False)
    await _frozen(pilot)


STAGES = {"clarify": _clarify_stage, "outline": _outline_stage, "searching": _searching_stage,
          "review": _review_stage}


@pytest.mark.parametrize("stage", list(STAGES))
def test_research_stage_snapshot(snap_compare, settings, stage):
    app, agent = research_app(settings)
    app.research_agent = agent  # for the stage's setup
    assert snap_compare(app, terminal_size=(120, 40), run_before=STAGES[stage])
