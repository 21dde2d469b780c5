"""The ingestor's finer progress calls (what the app's ingest bar moves on): each file is reported
read before it is written, its vectors as they are made, and the counts add up. Real encoder,
invented notes and a generated PDF."""

from __future__ import annotations

from pathlib import Path

from core.hub.ingest import Ingestor
from core.hub.store import HubStore
from paperpilot_tui.ingest_meter import IngestMeter
from tests.hub.test_pdf_ingest import make_pdf


def _docs(folder: Path) -> list[Path]:
    folder.mkdir()
    for i in range(3):
        body = " ".join(f"Sentence {j} of note {i} says the adapter uses rank {j + 4}." for j in range(60))
        (folder / f"note{i}.md").write_text(f"# Note {i}\n\n## Method\n\n{body}\n\n## Results\n\n{body}\n")
    make_pdf(folder / "paper.pdf")
    return sorted(folder.iterdir())


def test_files_are_reported_read_then_embedded_then_written_and_the_meter_follows(tmp_path):
    files = _docs(tmp_path / "docs")
    calls: list[tuple] = []
    meter = IngestMeter(files)
    store = HubStore(tmp_path / "hub.sqlite3")
    ing = Ingestor(store)
    fractions: list[float] = []

    def follow(kind, fn):
        def call(*args):
            calls.append((kind, args[0].name, *args[1:]))
            fn(*args)
            fractions.append(meter.now().fraction)
        return call

    ing.on_parsed = follow("parsed", meter.parsed)
    ing.on_embedded = follow("embedded", meter.embedded)
    report = ing.ingest(files, "mine", progress=follow("written", meter.step))
    store.close()
    assert report.ok and len(report.added) == 4
    for f in files:
        mine = [c for c in calls if c[1] == f.name]
        kinds = [c[0] for c in mine]
        assert kinds[0] == "parsed" and kinds[-1] == "written" and "embedded" in kinds, kinds
        chunks = mine[0][3]
        assert sum(c[2] for c in mine if c[0] == "embedded") == chunks  # every vector reported once
    assert calls[0][0] == "parsed" and calls.index(next(c for c in calls if c[0] == "written")) > 1
    assert sum(1 for c in calls if c[0] == "embedded") > len(files)  # sliced: more than one call per file
    assert fractions == sorted(fractions) and 0 < fractions[0] < 1 and fractions[-1] == 1
    done = meter.now()
    assert done.files_done == 4 and round(done.pages) == report.pages


def test_without_followers_the_ingestor_embeds_in_one_pass_per_batch(tmp_path, monkeypatch):
    import core.embeddings

    files = _docs(tmp_path / "docs")
    passes: list[int] = []
    real = core.embeddings.embed
    monkeypatch.setattr(core.embeddings, "embed", lambda texts, **kw: passes.append(len(texts)) or real(texts, **kw))
    store = HubStore(tmp_path / "hub.sqlite3")
    report = Ingestor(store).ingest(files, "mine")
    store.close()
    assert report.ok and report.chunks > 16 and sum(passes) == report.chunks
    assert all(n >= 64 for n in passes[:-1]), passes  # one pass per written batch, never cut into slices
