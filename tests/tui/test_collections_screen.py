"""The Collections screen's keys, palette entry and SVG snapshot, over recorded hub answers.

The answers below have exactly the shape the bundled hub returns (they are validated against its
``render.CollectionList`` and ``render.DocumentSummary`` models), with fixed counts, so the snapshot
does not move when the bundled corpus or the chunker changes; ``test_collections.py`` runs the same
screen over the real hub."""

from __future__ import annotations

from types import SimpleNamespace

from textual.command import CommandList, CommandPalette

from core.hub import render
from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.screens.collections import CollectionsScreen
from tests.tui.conftest import wait_until

LISTED = render.CollectionList(collections=[
    render.CollectionInfo(name="default", document_count=3, chunk_count=41, embedded_chunks=41, documents=[
        render.DocRef(doc_id="lora", title="LoRA: Low-Rank Adaptation of Large Language Models"),
        render.DocRef(doc_id="qlora", title="QLoRA: Efficient Finetuning of Quantized LLMs"),
        render.DocRef(doc_id="react", title="ReAct: Synergizing Reasoning and Acting in Language Models")]),
    render.CollectionInfo(name="mine", document_count=2, chunk_count=9, embedded_chunks=9, documents=[
        render.DocRef(doc_id="glimmerbeam", title="Glimmerbeam: Sparse Attention over Star Catalogues"),
        render.DocRef(doc_id="thistlenet", title="Thistlenet: Spiky Convolutions for Pollen Images")]),
]).model_dump()
SUMMARIES = {
    doc_id: render.DocumentSummary(doc_id=doc_id, collection="mine", title=title, source=f"/papers/{doc_id}.pdf",
                                   doc_type="pdf", version=1, year=year, pages=pages, chunk_count=chunks,
                                   sections=[], summary="").model_dump()
    for doc_id, title, year, pages, chunks in [
        ("glimmerbeam", "Glimmerbeam: Sparse Attention over Star Catalogues", 2024, 12, 6),
        ("thistlenet", "Thistlenet: Spiky Convolutions for Pollen Images", None, 3, 3)]
}


class RecordedHub:
    def __init__(self) -> None:
        self.summaries: list[tuple[str, str]] = []

    async def list_collections(self, timeout: float | None = None):
        return SimpleNamespace(structured=LISTED, texts=[])

    async def get_document_summary(self, doc_id: str, collection: str | None = None):
        self.summaries.append((doc_id, collection or ""))
        return SimpleNamespace(structured=SUMMARIES[doc_id], texts=[])


def _app(settings) -> PaperPilotApp:
    app = PaperPilotApp(settings, start_backend=False, blink=False)
    app.session.agent = SimpleNamespace(hub=RecordedHub(), collection="default", brain_name="offline",
                                        hub_status="hub (stdio)")
    return app


async def _open_mine(pilot) -> None:
    app = pilot.app
    await pilot.press("alt+c")
    await wait_until(pilot, lambda: isinstance(app.screen, CollectionsScreen) and bool(app.screen.collections))
    await pilot.press("down", "enter")
    docs = app.screen.query_one("#documents")
    await wait_until(pilot, lambda: docs.row_count == 2 and "…" not in str(docs.get_row_at(1)))
    await pilot.pause()


async def test_enter_lists_the_documents_with_year_pages_and_chunks(settings):
    app = _app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open_mine(pilot)
        docs = app.screen.query_one("#documents")
        assert [list(map(str, docs.get_row_at(n))) for n in range(2)] == [
            ["Glimmerbeam: Sparse Attention over Star Catalogues", "2024", "12", "6"],
            ["Thistlenet: Spiky Convolutions for Pollen Images", "—", "3", "3"]]
        assert app.session.agent.hub.summaries == [("glimmerbeam", "mine"), ("thistlenet", "mine")]
        assert "Documents of mine (2 documents, 9 chunks)" in str(app.screen.query_one("#documents-title").render())
        await pilot.press("escape")  # documents → collections, then closed
        assert app.screen.query_one("#collections").has_focus
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main_screen)


async def test_esc_c_as_a_terminal_sends_it_opens_collections_from_the_question_box(settings):
    """tmux and xterm send alt+c as ESC c: Textual reads alt+c with the printable "c", which the
    focused question box would type unless the binding comes first."""
    from textual import events
    from textual._xterm_parser import XTermParser

    app = _app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        box = app.main_screen.query_one("#chat-input")
        box.focus()
        await pilot.pause()
        [key] = [e for e in XTermParser().feed("\x1bc") if isinstance(e, events.Key)] or [events.Key("alt+c", "c")]
        assert (key.key, key.character) == ("alt+c", "c")
        app.post_message(key)
        await wait_until(pilot, lambda: isinstance(app.screen, CollectionsScreen))
        assert box.text == ""


async def test_collections_is_in_the_command_palette(settings):
    app = _app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"collections")
        hits = app.screen.query_one(CommandList)

        def prompts() -> list[str]:
            return [str(hits.get_option_at_index(n).prompt) for n in range(hits.option_count)]

        await wait_until(pilot, lambda: any(p.startswith("Collections…") for p in prompts()))
        want = [p.startswith("Collections…") for p in prompts()].index(True)
        while hits.highlighted != want:
            await pilot.press("down" if (hits.highlighted or 0) < want else "up")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, CollectionsScreen))


def test_collections_screen_snapshot(snap_compare, settings):
    assert snap_compare(_app(settings), terminal_size=(120, 40), run_before=_open_mine)
