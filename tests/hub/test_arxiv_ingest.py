"""``paperpilot ingest arxiv:ID …`` against a loopback server replaying arXiv's Atom API and PDFs:
the PDF goes through the normal ingestion (real parsing), its chunks carry the paper's title,
authors, year and URL, and a paper that cannot be fetched is one line while the others ingest."""

from __future__ import annotations

import time

import pytest

from core.hub.render import citation
from core.hub.service import Hub
from core.hub.store import HubStore
from tests.support.cli import cli
from tests.support.web_replay import WebReplay, paper_pdf

LORA = paper_pdf("LoRA Low-Rank Adaptation", [
    ("1 Introduction", "Low-rank adaptation freezes the pretrained weights and trains rank decomposition "
                       "matrices injected into each Transformer layer."),
    ("2 Results", "The adapted model reduces trainable parameters by ten thousand times."),
])
QLORA = paper_pdf("QLoRA Quantized Finetuning", [
    ("1 Method", "The 4-bit NormalFloat data type quantizes the frozen base model; paged optimizers "
                 "absorb memory spikes during finetuning."),
])


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def web():
    with WebReplay(pdfs={"2106.09685": LORA, "2305.14314v1": QLORA}) as server:
        yield server


@pytest.fixture
def config(tmp_path, web):
    path = tmp_path / "settings.yaml"
    path.write_text(f"arxiv:\n  api_url: {web.url}/arxiv/api/query\n  pdf_url: {web.url}/arxiv/pdf\n  timeout: 2\n")
    return str(path)


def test_arxiv_papers_are_fetched_ingested_and_carry_their_metadata(home, capsys, web, config):
    code, out, err = cli(capsys, "ingest", "arxiv:2106.09685", "arxiv:2305.14314v1", "--no-embed",
                         "--collection", "papers", "--config", config)
    assert code == 0, err
    assert "2 added" in out and err == ""
    assert [r["query"].get("id_list") for r in web.requests if r["path"] == "/arxiv/api/query"] == [
        "2106.09685,2305.14314"]
    store = HubStore(home / "hub.sqlite3")
    docs = {d["url"]: d for d in store.documents("papers")}
    lora = docs["http://arxiv.org/abs/2106.09685v2"]
    assert lora["title"] == "LoRA: Low-Rank Adaptation of Large Language Models"
    assert lora["authors"][:2] == ["Edward J. Hu", "Yelong Shen"] and lora["year"] == 2021
    assert docs["http://arxiv.org/abs/2305.14314v1"]["year"] == 2023
    chunks = store.doc_chunks(lora["doc_id"])
    assert {c.page for c in chunks} == {1, 2}  # parsed from the PDF, page by page
    assert any("rank decomposition" in c.text for c in chunks)
    assert all(c.url == lora["url"] and c.year == 2021 and c.title == lora["title"] for c in chunks)
    store.close()

    # What the hub's tools return: the citation and the summary carry the metadata (optional fields).
    hub = Hub(home / "hub.sqlite3", sync=False)
    hub.start(background=False)
    hits = hub.keyword(["decomposition"], collection="papers", top_k=3)
    top = citation(1, hits[0]).metadata
    assert (top.url, top.year, top.authors[0]) == ("http://arxiv.org/abs/2106.09685v2", 2021, "Edward J. Hu")
    assert hub.summary(lora["doc_id"], "papers").url == lora["url"]


def test_an_unreachable_paper_is_one_line_and_the_others_still_ingest(home, capsys, web, config):
    del web.pdfs["2305.14314v1"]  # its PDF answers 404
    code, out, err = cli(capsys, "ingest", "arxiv:2106.09685", "arxiv:2305.14314v1", "arxiv:not-an-id",
                         "--no-embed", "--config", config)
    assert code == 1
    lines = err.strip().splitlines()
    assert lines == ["paperpilot: skipped arxiv:not-an-id: not an arXiv id (write arxiv:2106.09685)",
                     "paperpilot: skipped arxiv:2305.14314v1: arxiv: HTTP 404 Not Found"]
    assert "1 added" in out and "2 failed" in out


@pytest.mark.parametrize("failure, reason", [("429", "arxiv: rate limited (HTTP 429); the provider asks to wait 30 s"),
                                             ("timeout", "arxiv: no reply within 0.5 s"),
                                             ("malformed", "arxiv: malformed reply (not Atom XML")])
def test_an_api_failure_is_one_line_per_id(home, capsys, web, tmp_path, failure, reason):
    config = tmp_path / "fast.yaml"
    config.write_text(f"arxiv:\n  api_url: {web.url}/arxiv/api/query\n  pdf_url: {web.url}/arxiv/pdf\n  timeout: 0.5\n")
    web.fail["arxiv"] = failure
    code, out, err = cli(capsys, "ingest", "arxiv:2106.09685", "arxiv:2305.14314", "--no-embed", "--config", str(config))
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 2 and "Traceback" not in err
    assert all(line.startswith("paperpilot: skipped arxiv:") and reason in line for line in lines)


def test_offline_fetches_nothing(home, capsys, web, config):
    code, _, err = cli(capsys, "--offline", "ingest", "arxiv:2106.09685", "--config", config)
    assert code == 1 and web.requests == []
    assert err.strip() == "paperpilot: skipped arxiv:2106.09685: not fetched: --offline allows no network"


def _bounded_config(tmp_path, web, deadline: float = 1.5, max_bytes: int = 1_000_000) -> str:
    path = tmp_path / "bounded.yaml"
    path.write_text(f"arxiv:\n  api_url: {web.url}/arxiv/api/query\n  pdf_url: {web.url}/arxiv/pdf\n"
                    f"  timeout: 5\n  download_deadline: {deadline}\n"
                    f"limits:\n  ingest_file_bytes: {max_bytes}\n")
    return str(path)


def test_a_trickling_pdf_server_is_cut_off_at_the_total_deadline(home, capsys, web, tmp_path):
    """One byte every 0.25 s never trips the 5 s read timeout; the 1.5 s total deadline ends it."""
    web.pdf_fail = "trickle"
    started = time.monotonic()
    code, out, err = cli(capsys, "ingest", "arxiv:2106.09685", "--no-embed", "--config", _bounded_config(tmp_path, web))
    elapsed = time.monotonic() - started
    assert code == 1 and "Traceback" not in err
    assert err.strip().splitlines() == [
        f"paperpilot: skipped arxiv:2106.09685: arxiv: {web.url}/arxiv/pdf/2106.09685 took longer than "
        "arxiv.download_deadline (1.5 s); download stopped"]
    assert elapsed < 1.5 + 2.0, elapsed  # the deadline, plus the metadata request and the CLI itself
    assert not list((home / "arxiv").glob("*")), "no partial or whole PDF is left behind"


def test_a_pdf_body_past_the_size_limit_is_stopped_while_streaming(home, capsys, web, tmp_path):
    """A 64 MB body with no Content-Length: reading stops at the 1 MB limit, not after the whole body."""
    web.pdf_fail = "endless"
    code, out, err = cli(capsys, "ingest", "arxiv:2106.09685", "--no-embed", "--config", _bounded_config(tmp_path, web))
    assert code == 1 and "Traceback" not in err
    assert err.strip().splitlines() == [
        "paperpilot: skipped arxiv:2106.09685: arxiv: the PDF is over limits.ingest_file_bytes (1,000,000 bytes); "
        "download stopped"]
    time.sleep(0.5)  # let the server notice the closed connection
    assert web.pdf_sent < 16_000_000, web.pdf_sent  # the limit plus what socket buffers hold, not 64 MB
    assert not list((home / "arxiv").glob("*"))


def test_a_declared_length_past_the_limit_is_refused_before_the_body(home, capsys, web, tmp_path):
    web.pdf_fail = "declared"
    code, out, err = cli(capsys, "ingest", "arxiv:2106.09685", "--no-embed", "--config", _bounded_config(tmp_path, web))
    assert code == 1 and "Traceback" not in err
    assert err.strip().splitlines() == [
        "paperpilot: skipped arxiv:2106.09685: arxiv: the PDF is 400,000,000 bytes, over limits.ingest_file_bytes "
        "(1,000,000); not downloaded"]
