"""The first screen suggests a question about the active collection's own papers (the real app over
its own stdio hub): the bundled comparison is no example for a library of other papers, and a
collection with no documents says how to add some. The paper here is invented (a PDF made with fpdf2)."""

from __future__ import annotations

from core.hub.ingest import Ingestor
from core.hub.store import HubStore
from paperpilot_tui.hub_collections import BUNDLED_EXAMPLE, Collection, example_question
from paperpilot_tui.widgets.chat import hint_for
from tests.support.web_replay import paper_pdf
from tests.tui.conftest import own_hub_app, wait_until


def _hint(app) -> str:
    return " ".join(str(n.render()) for n in app.main_screen.query("#chat-log .chat-hint"))


async def test_the_first_screen_suggests_a_question_about_the_collections_own_papers(settings, hub_db, tmp_path):
    pdf = tmp_path / "kestrel.pdf"
    pdf.write_bytes(paper_pdf("Kestrel: Sparse Replay for Streaming Agents",
                              [("1 Method", "Kestrel replays one stored episode in eight to keep a streaming "
                                            "agent from forgetting its earlier tasks.")]))
    settings.mcp.collection = "mine"
    app = own_hub_app(settings, hub_db, tmp_path)
    store = HubStore(tmp_path / "hub" / "hub.sqlite3")  # the copy the app's hub serves
    report = Ingestor(store, embed=False).ingest([pdf], "mine")
    store.close()
    assert len(report.added) == 1, report
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.warm.is_set(), timeout=180)
        await wait_until(pilot, lambda: "What does Kestrel propose?" in _hint(app))
        assert BUNDLED_EXAMPLE not in _hint(app) and "enter sends" in _hint(app)
        await pilot.press("ctrl+n")  # a new session shows the same suggestion again
        await wait_until(pilot, lambda: "What does Kestrel propose?" in _hint(app))


def test_the_suggestion_is_the_bundled_comparison_only_where_both_papers_are_and_none_for_no_documents():
    bundled = Collection("default", 2, 9, (("lora", "LoRA: Low-Rank Adaptation of Large Language Models"),
                                           ("qlora", "QLoRA: Efficient Finetuning of Quantized LLMs")))
    assert example_question(bundled) == BUNDLED_EXAMPLE
    long_only = Collection("mine", 1, 3, (("r", "Identifying Relations for Open Information Extraction in the Wild"),))
    assert example_question(long_only) == ("What does Identifying Relations for Open Information Extraction in "
                                           "the Wild propose?")  # no short name before a colon: the title
    assert example_question(Collection("empty", 0, 0, ())) is None
    assert "'empty' holds no documents yet: /ingest PATH" in hint_for(None, "empty")
