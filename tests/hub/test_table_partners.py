"""A hit on a table's caption brings the table's rows, and a hit on its rows brings the caption
(core.hub.search.table_partners): the caption chunk carries the sentences that discuss the table,
the rows chunk its values, and a question may be worded like either."""

from __future__ import annotations

from core.hub.ingest import Ingestor
from core.hub.search import PARTNERS, Searcher, float_label
from core.hub.store import HubStore
from tests.hub.pdfgen import LEFT, Paper, filler_lines, table


def paper(path):
    p = Paper().page()
    p.line("Wren: Batched Inference on Small Devices", 120, 80, 16, bold=True)
    p.line("Ada Lovelace", 250, 110, 12)
    p.line("1 Introduction", LEFT, 150, 12, bold=True)
    p.lines(filler_lines(4), LEFT, 170)
    p.line("2 Results", LEFT, 240, 12, bold=True)
    table(p, [(262, [(LEFT, "Device"), (250, "Latency"), (350, "Energy")]),
              (276, [(LEFT, "Phone"), (250, "41 ms"), (350, "0.8 J")]),
              (290, [(LEFT, "Watch"), (250, "97 ms"), (350, "0.3 J")])])
    p.line("Table 1: Costs of one request on each device.", LEFT, 314, 9)
    p.lines(["Table 1 shows that batching keeps wearables responsive despite their slow cores.",
             *filler_lines(3)], LEFT, 344)
    return p.save(path)


def test_a_caption_hit_brings_its_tables_rows_after_the_top_k(tmp_path):
    store = HubStore(tmp_path / "hub.sqlite3")
    assert Ingestor(store, embed=False).ingest([paper(tmp_path / "wren.pdf")], "papers").ok
    s = Searcher(store)
    q = "does batching keep wearables responsive despite slow cores"
    (top,) = s.search("papers", q, top_k=1, legs="lexical")  # the evaluation legs: no partners
    assert top.chunk.text.startswith("Table 1: Costs of one request")
    hits = s.search("papers", q, top_k=1)
    assert [h.chunk.rowid for h in hits][:1] == [top.chunk.rowid] and 1 < len(hits) <= 1 + PARTNERS
    rows = hits[1].chunk
    assert float_label(rows) == float_label(top.chunk) == ("wren", "tab", "1")
    assert "Watch" in rows.text and "97 ms" in rows.text
    # and the other way: a hit on the rows brings the caption with its discussion
    hits = s.search("papers", "watch latency of a request in ms", top_k=1)
    assert "97 ms" in hits[0].chunk.text and any("wearables responsive" in h.chunk.text for h in hits[1:])


def test_a_hit_on_no_table_brings_nothing_more(tmp_path):
    store = HubStore(tmp_path / "hub.sqlite3")
    Ingestor(store, embed=False).ingest([paper(tmp_path / "wren.pdf")], "papers")
    hits = Searcher(store).search("papers", "trained on a large corpus of sentences", top_k=1)
    assert len(hits) == 1 and float_label(hits[0].chunk) is None


def test_a_figure_caption_hit_brings_nothing_more(tmp_path):
    p = Paper().page()
    p.line("Wren: Batched Inference on Small Devices", 120, 80, 16, bold=True)
    p.line("1 Results", LEFT, 150, 12, bold=True)
    p.lines(filler_lines(4), LEFT, 170)
    p.line("Figure 2: Latency of batched requests on a watch.", LEFT, 260, 9)
    p.lines(["Figure 2 shows the latency of batched requests on a watch.", *filler_lines(3)], LEFT, 290)
    store = HubStore(tmp_path / "hub.sqlite3")
    Ingestor(store, embed=False).ingest([p.save(tmp_path / "fig.pdf")], "papers")
    hits = Searcher(store).search("papers", "latency of batched requests on a watch", top_k=1)
    assert len(hits) == 1 and float_label(hits[0].chunk) is None


def test_a_capped_search_still_brings_a_caption_hits_rows(tmp_path):
    """``per_doc=1``: the caption fills its paper's one place, and the table's rows come after the
    top_k as they do without the cap (partners do not count against it: they are the caption's numbers)."""
    store = HubStore(tmp_path / "hub.sqlite3")
    assert Ingestor(store, embed=False).ingest([paper(tmp_path / "wren.pdf")], "papers").ok
    s = Searcher(store)
    q = "does batching keep wearables responsive despite slow cores"
    plain = s.search("papers", q, top_k=1)
    capped = s.search("papers", q, top_k=1, per_doc=1)
    assert [h.chunk.rowid for h in capped] == [h.chunk.rowid for h in plain]
    assert len(capped) > 1 and "97 ms" in capped[1].chunk.text
