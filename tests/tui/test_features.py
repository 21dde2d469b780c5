"""Pilot tests for what users of the best chat TUIs expect: pane tabs named by their keys, copy,
export, search in the chat, the cost segment, the persisted theme, detail panes, empty states."""

from __future__ import annotations

from textual.widgets import Tabs

from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.widgets.chat import ChatPane, CodeBlock
from tests.tui.conftest import ask, real_agent_factory, wait_until
from tests.tui.stub_hub import StubHub


async def test_narrow_tabs_are_labelled_with_the_keys_that_switch_them(settings):
    app = PaperPilotApp(settings, start_backend=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.main_screen.has_class("narrow"))
        labels = [str(t.label) for t in app.main_screen.query_one(Tabs).query("Tab")]
        assert labels == ["F5 Chat", "F6 Graph", "F7 Trace", "F8 Memory"]
        await pilot.press("f6")
        assert app.main_screen.query_one(Tabs).active == "tab-graph"


async def test_the_chosen_theme_comes_back_at_the_next_launch(settings):
    from paperpilot_tui.prefs import prefs_path

    app = PaperPilotApp(settings, start_backend=False)
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.theme == "textual-dark"
        assert not prefs_path(settings).exists()  # launching alone stores nothing: settings stay the default
        await pilot.press("f9")
        chosen = app.theme
        assert chosen != "textual-dark"
    assert settings.tui.theme == "textual-dark"
    again = PaperPilotApp(settings, start_backend=False)
    async with again.run_test(size=(120, 40)) as pilot:
        assert again.theme == chosen
        await pilot.press("f10")
    third = PaperPilotApp(settings, start_backend=False)
    async with third.run_test(size=(120, 40)):
        assert third.theme == "paperpilot-high-contrast"


def real_app(settings, memory: bool = False, **kw) -> PaperPilotApp:
    """The real agent (offline brain, real graph, checkpointer, stores) on the stub hub."""
    settings.memory.enabled = memory
    return PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()), **kw)


async def test_copy_puts_the_last_answer_or_the_focused_code_block_on_the_clipboard(settings):
    app = real_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+g")
        assert app.clipboard == ""  # nothing to copy yet: a warning, not an empty clipboard
        await ask(pilot, "What does LoRA freeze?")
        result = app.main_screen.query_one(ChatPane).record[-1]
        assert "freezes the pretrained model weights" in result.answer
        await pilot.press("ctrl+g")
        assert app.clipboard == result.answer  # as written: [n] citations, not the chat's links
        assert "[1]" in app.clipboard and "#source-" not in app.clipboard
        assert any("Copied the answer" in str(n.message) for n in app._notifications)
        chat = app.main_screen.query_one(ChatPane)
        chat.show_history([("a code question", "Use this:\n\n```python\nprint('lora')\n```\n\nDone [1].")])
        block = await _wait_for(pilot, lambda: chat.query(CodeBlock).last() if chat.query(CodeBlock) else None)
        block.focus()
        await pilot.press("ctrl+g")
        assert app.clipboard == "print('lora')"


async def _wait_for(pilot, get):
    await wait_until(pilot, lambda: get() is not None)
    return get()


async def test_export_writes_the_session_with_each_answers_numbered_sources(settings, tmp_path):
    from textual.widgets import Input

    from core.hub.library.cite import pandoc_citations, session_citations

    app = real_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, "What does LoRA freeze?")
        await ask(pilot, "How much GPU memory does QLoRA need to finetune a 65B model?")
        record = app.main_screen.query_one(ChatPane).record
        assert [len(t.sources) > 0 for t in record] == [True, True]
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "PromptScreen")
        box = app.screen.query_one(Input)
        session = app.session.session_id
        assert box.value == str(settings.paths.resolve("exports") / f"{session}.md")
        target = tmp_path / "out" / "lora.md"
        box.value = str(target)
        await pilot.press("enter")
        await wait_until(pilot, lambda: target.exists())
    text = target.read_text(encoding="utf-8")
    assert session in text
    bib, keys = session_citations([t.sources for t in record])
    assert (tmp_path / "out" / "lora.bib").read_text(encoding="utf-8") == bib  # the cited papers, beside it
    for n, turn in enumerate(record, 1):
        assert f"## {n}. {turn.question}" in text
        assert pandoc_citations(turn.answer, keys[n - 1]).strip() in text  # [n] cited as [@key]
    first, second = text.split("## 2. ")
    for part, turn, key in ((first, record[0], keys[0]), (second, record[1], keys[1])):
        assert "### Sources" in part
        for s in turn.sources:  # each cited [n] with its paper and chunk, under its own turn
            assert f"- **[{s.index}]** {s.title}" in part and f"`{s.chunk_id}`" in part
            assert f"[{s.index}]" in turn.answer and f"@{key[s.index]}" in part and f"{{{key[s.index]},\n" in bib


async def test_search_in_the_chat_jumps_between_matches_and_scrolls_to_them(settings):
    from paperpilot_tui.widgets.chat import Answer, ChatLog
    from paperpilot_tui.widgets.chat_input import ChatInput
    from paperpilot_tui.widgets.chat_search import ChatSearch

    app = real_app(settings)
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, "What does LoRA freeze?")
        await ask(pilot, "How much GPU memory does QLoRA need to finetune a 65B model?")
        screen = app.main_screen
        log, search = screen.query_one(ChatLog), screen.query_one(ChatSearch)
        record = screen.query_one(ChatPane).record
        assert log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y  # at the bottom, the first answer above

        await pilot.press("slash")  # the question box has focus: "/" is typed there, no search
        assert screen.query_one(ChatInput).text == "/" and not search.is_open
        screen.query_one(ChatInput).clear()
        await pilot.press("ctrl+f")
        assert search.is_open and app.focused is search.query_one("#chat-search-input")
        await pilot.press(*"pretrained")
        expected = sum((t.question + " " + t.answer).lower().count("pretrained") for t in record)
        assert expected >= 1 and "pretrained" not in record[1].answer.lower()
        count = search.query_one("#chat-search-count")
        assert str(count.render()) == f"1 of {expected}"
        first_answer = screen.query(Answer).first()
        current = search.matches[search.current]
        assert current.parent is first_answer and current.has_class("-search-current")
        await wait_until(pilot, lambda: log.scroll_y < log.max_scroll_y)  # scrolled up to the first answer
        assert current.region.height > 0 and log.content_region.overlaps(current.region)

        search.query_one("#chat-search-input").value = "lora"  # LoRA and QLoRA: several matches in both turns
        await pilot.pause()
        total = sum((t.question + " " + t.answer).lower().count("lora") for t in record)
        assert total >= 3 and str(count.render()) == f"1 of {total}"
        await pilot.press("enter")
        assert str(count.render()) == f"2 of {total}"
        await pilot.press("down")
        assert str(count.render()) == f"3 of {total}"
        await pilot.press("up", "up", "up")  # wraps around to the last match
        assert str(count.render()) == f"{total} of {total}"
        last = search.matches[-1]
        assert last.parent is screen.query(Answer).last()
        await wait_until(pilot, lambda: last.region.height > 0 and log.content_region.overlaps(last.region))
        assert len(log.query(".-search-current")) == 1 and len(log.query(".-search-hit")) >= 3

        await pilot.press("escape")
        assert not search.is_open and not log.query(".-search-hit")
        assert app.focused is screen.query_one(ChatInput)
        assert screen.status.activity == "ready"


async def test_a_new_session_shows_what_to_ask_and_the_keys(settings):
    from paperpilot_tui.widgets.chat import ChatLog, Question

    app = real_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.main_screen.query_one(ChatLog)
        hint = lambda: " ".join(str(n.render()) for n in log.query(".chat-hint"))  # noqa: E731
        assert "Ask about the papers" in hint() and "ctrl+f search" in hint() and "ctrl+s export" in hint()
        await ask(pilot, "What does LoRA freeze?")
        assert not log.query(".chat-hint")  # the conversation replaces the hint
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: not log.query(Question) and bool(log.query(".chat-hint")))
        assert "Ask about the papers" in hint() and "enter sends" in hint() and "F1 help" in hint()
        assert app.main_screen.query_one(ChatPane).record == []


async def test_an_empty_memory_browser_says_how_facts_get_there_and_a_adds_one(settings):
    app = real_app(settings, memory=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.stores is not None)
        await pilot.press("f3")
        await wait_until(pilot, lambda: "0 fact(s)" in str(app.screen.query_one("#browser-status").render()))
        detail = str(app.screen.query_one("#fact-detail").render())
        assert "No facts yet" in detail and "After each answer" in detail and "Press a to add" in detail
        await pilot.press("a")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "PromptScreen")
        await pilot.press(*"LoRA rank 8 is the default", "enter")
        await wait_until(pilot, lambda: len(getattr(app.screen, "facts", [])) == 1)
        detail = str(app.screen.query_one("#fact-detail").render())
        assert "LoRA rank 8 is the default" in detail and "added by hand" in detail


async def test_sessions_browser_says_when_there_are_none_and_details_the_highlighted_one(settings):
    from textual.widgets import DataTable

    app = real_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.stores is not None)
        await pilot.press("f2")
        await wait_until(pilot, lambda: "0 session(s)" in str(app.screen.query_one("#browser-status").render()))
        assert "No sessions yet" in str(app.screen.query_one("#session-detail").render())
        await pilot.press("escape")
        await ask(pilot, "What does LoRA freeze?")
        await ask(pilot, "How much GPU memory does QLoRA need to finetune a 65B model?")
        first = app.session.session_id
        await pilot.press("ctrl+n")
        await ask(pilot, "What does QLoRA reach on the Vicuna benchmark?")
        await pilot.press("f2")
        await wait_until(pilot, lambda: len(getattr(app.screen, "sessions", [])) == 2)
        screen = app.screen
        detail = lambda: str(screen.query_one("#session-detail").render())  # noqa: E731
        await wait_until(pilot, lambda: "first question: What does QLoRA reach" in detail())
        assert "the current session" in detail() and "1 turn(s)" in detail()
        row = next(n for n, s in enumerate(screen.sessions) if s.id == first)
        screen.query_one(DataTable).move_cursor(row=row)
        await wait_until(pilot, lambda: "first question: What does LoRA freeze?" in detail())
        text = detail()
        assert f"session {first} · 2 turn(s)" in text and "last used " in text and "started " in text
        assert "latest question: How much GPU memory" in text and "0 LLM call(s)" in text
        assert screen.sessions[row].title in text


async def test_memory_browser_details_a_fact_where_it_came_from_and_when_it_was_recalled(settings):
    from core.stores import open_stores

    stores = open_stores(settings).open_all()
    fact = stores.facts.add("QLoRA finetunes a 65B model on a single 48GB GPU with 4-bit NormalFloat weights",
                            source_question="How much memory does QLoRA need?", session_id="s-qlora",
                            created=1_700_000_000)
    with stores.facts.db.write() as conn:  # recalled twice, last at a known time
        conn.execute("UPDATE facts SET recall_count = 2, last_recalled = ? WHERE id = ?", (1_700_086_400, fact.id))
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()), stores_factory=lambda s: stores)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.session.stores is not None)
        await pilot.press("f3")
        await wait_until(pilot, lambda: len(getattr(app.screen, "facts", [])) == 1)
        detail = str(app.screen.query_one("#fact-detail").render())
        assert fact.content in detail  # in full, though wider than the fact column at 100 columns
        assert "session s-qlora" in detail and "asked: “How much memory does QLoRA need?”" in detail
        assert "created 2023-11-14 22:13" in detail and "recalled 2×, last 2023-11-15 22:13" in detail
        assert "keywords: " in detail and "qlora" in detail.split("keywords: ")[1].lower()


async def test_memory_browser_shows_the_document_and_chunk_a_fact_was_learnt_from(settings):
    from core.stores import open_stores

    stores = open_stores(settings).open_all()
    fact = stores.facts.add("QLoRA backpropagates through a frozen 4-bit model into LoRA adapters",
                            source_question="What is QLoRA?", session_id="s-q")
    with stores.facts.db.write() as conn:  # provenance as the agent's memorize path records it
        conn.execute("UPDATE facts SET doc_id = 'qlora', doc_title = 'QLoRA', chunk_id = 'qlora_0002',"
                     " source_docs = '[\"qlora\", \"lora\"]' WHERE id = ?", (fact.id,))
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()), stores_factory=lambda s: stores)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.session.stores is not None)
        await pilot.press("f3")
        await wait_until(pilot, lambda: len(getattr(app.screen, "facts", [])) == 1)
        detail = str(app.screen.query_one("#fact-detail").render())
        assert "source: QLoRA (qlora) · chunk qlora_0002 · supported by 2 documents" in detail
        assert "session s-q" in detail

async def test_status_bar_shows_seconds_llm_calls_and_tokens_of_the_last_turn_and_the_session(settings):
    import re

    from core.events import LLMCall, TurnFinished, TurnStarted
    from paperpilot_tui.messages import AgentEvent

    app = real_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        status = app.main_screen.status
        assert status.cost == "" and "last " not in str(status.render())  # no turn yet: nothing claimed
        await ask(pilot, "What does LoRA freeze?")
        shape = r"last (\d+\.\d) s · 0 calls · 0 tok · total (\d+\.\d) s"  # the offline brain calls no LLM
        first = re.fullmatch(shape, status.cost)
        assert first and first[1] == first[2], status.cost
        assert status.cost in str(status.render())  # shown at 120 columns
        await ask(pilot, "How much GPU memory does QLoRA need to finetune a 65B model?")
        second = re.fullmatch(shape, status.cost)
        meter = app.main_screen.cost
        assert second and meter.total.turns == 2
        assert abs(float(second[2]) - (meter.total.seconds)) < 0.06 and meter.total.seconds >= meter.last.seconds
        # a turn of an LLM brain: its calls and tokens come from the LLMCall events and the result
        run, sid = app.session.run, app.session.session_id
        started = TurnStarted(question="q", session_id=sid, ts=100.0)
        calls = [LLMCall(purpose="answer", model="m", prompt_tokens=30, completion_tokens=12, ts=101.0),
                 LLMCall(purpose="critic", model="m", prompt_tokens=5, completion_tokens=1, ts=102.0)]
        finished = TurnFinished(result=_result(sid, llm_calls=2, total_ms=2500.0), ts=102.5)
        for ev in (started, *calls, finished):
            app.main_screen.post_message(AgentEvent(ev, run))
        await wait_until(pilot, lambda: status.cost.startswith("last 2.5 s · 2 calls · 48 tok"))
        assert status.cost.endswith(" · 2 calls · 48 tok · $0") and meter.total.turns == 3  # model "m" is unpriced
        await pilot.press("ctrl+n")  # a new session starts from nothing
        await wait_until(pilot, lambda: status.cost == "")


def _result(session_id: str, *, llm_calls: int, total_ms: float):
    from core.types import TurnResult

    return TurnResult(question="q", session_id=session_id, trace_id="t", intent=None, strategy="simple",
                      final_answer="a", sources=[], critic=None, retry_count=0, llm_calls=llm_calls,
                      tokens={"prompt": 35, "completion": 13, "total": 48}, timings_ms={"total": total_ms})


def test_the_new_keys_pass_the_keymap_validator():
    """Copy, export and search keys are sent by every terminal and tmux, and nothing in front takes them."""
    from paperpilot_tui.actions import BY_ID
    from paperpilot_tui.keycheck import KITTY_ONLY, check_keymap

    ids = ("copy_answer", "export_session", "search_chat", "search_next", "search_prev", "search_close")
    good, problems = check_keymap({i: BY_ID[i].keys for i in ids})
    assert problems == [] and set(good) == set(ids)
    for i in ("copy_answer", "export_session", "search_chat"):
        assert not set(BY_ID[i].keys.split(",")) & KITTY_ONLY
