"""The sources pane shows a cited paper's bibliographic line (issue 29, item 3): authors, year, venue,
DOI or arXiv id and citation key under its title, from the metadata the hub sent with the hit."""

from __future__ import annotations

from textual.app import App, ComposeResult

from core.types import DocMeta, Source
from paperpilot_tui.widgets.sources import SourcesPanel


class PaneApp(App):
    def compose(self) -> ComposeResult:
        yield SourcesPanel()


async def test_the_selected_source_shows_its_citation_line():
    meta = DocMeta(authors=["Ana Lee", "Jin-woo Park"], year=2023, venue="Proceedings of Adapters",
                   doi="10.1234/sma.2023.7", citation_key="lee2023sparse")
    cited = Source(index=1, chunk_id="sparse_0001", doc_id="sparse", title="SMA: Sparse Mixture Adapters",
                   breadcrumb="SMA > Method", page=2, text="Sparse adapters route tokens.", meta=meta)
    plain = Source(index=2, chunk_id="note_0003", doc_id="note", title="A note", text="No metadata here.")
    app = PaneApp()
    async with app.run_test(size=(120, 20)) as pilot:
        panel = app.query_one(SourcesPanel)
        panel.show([cited, plain])
        await pilot.pause()
        detail = str(panel.query_one("#source-detail").render())
        assert "Lee, Park 2023 · Proceedings of Adapters · doi:10.1234/sma.2023.7 · @lee2023sparse" in detail
        panel.select_index(2)
        await pilot.pause()
        detail = str(panel.query_one("#source-detail").render())
        assert "No metadata here." in detail and "@" not in detail and "doi:" not in detail
