"""Stored and third-party text never drives the terminal from the CLI (issue 26, item 7): ``research``
output, ``ingest`` skipped-file lines, ``hub watch`` lines and log records, ``ask``'s rendering, each
with the payloads of :mod:`tests.support.escapes`."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from core.events import (
    ClarificationAsked, OutlineProposed, PointSearched, ResearchStarted, ResearchWaiting, ReviewFinished,
)
from core.research.types import ClarifyingQuestion, KnowledgePoint, Outline, ResearchReview
from paperpilot_tui.cli.research_render import Printer
from tests.support.cli import cli, home  # noqa: F401 - fixture
from tests.support.escapes import AFTER, ALL, BEFORE, UNSAFE, assert_inert, payloads, wrapped
from tests.support.recorded import recorded_events

REPO = Path(__file__).resolve().parents[2]
MAIN = "import sys; from paperpilot_tui.cli.main import main; sys.exit(main())"


def _outline(text: str) -> Outline:
    return Outline(title=text, search_strategy=text, knowledge_points=[
        KnowledgePoint(id="KP1", category=text, topic=text, search_keywords=[text])])


def _research_events(text: str, end: str) -> list:
    events = [ResearchStarted(topic=text, session_id="r1"),
              PointSearched(point_id="KP1", topic=text, index=1, total=1, queries=[text])]
    if end == "answers":
        return [*events, ClarificationAsked(questions=[ClarifyingQuestion(id=1, question=text, purpose=text)]),
                ResearchWaiting(stage="clarification", needs="answers")]
    if end == "outline":
        return [*events, OutlineProposed(outline=_outline(text)), ResearchWaiting(stage="confirmation", needs="outline")]
    return [*events, ReviewFinished(review=ResearchReview(title=text, markdown=f"# {text}\n\n{text}\n", gaps=[text]))]


@payloads
def test_research_output_is_inert(payload, capsys):
    """Progress lines, the questions, the outline, the review and --json: what the hub and the
    documents put in them is printed without its control sequences."""
    for end in ("answers", "outline", "review"):
        for as_json in (False, True):
            printer = Printer(SimpleNamespace(json=as_json, out=None))
            for event in _research_events(wrapped(payload), end):
                printer.update(event)
            printer.finish()
            out = capsys.readouterr()
            assert_inert(out.out + out.err)


def test_research_command_prints_a_stored_topic_inert(hub_db, tmp_path):
    """The real command: a topic holding every payload, stored in the session and printed back."""
    from tests.research.test_cli import pp
    from tests.support.ask_proc import write_settings

    data = tmp_path / "home"
    data.mkdir(mode=0o700)
    config = write_settings(tmp_path / "settings.yaml", hub_db)
    run = pp(data, config, "--no-clarify", "--print-outline", f"LoRA {wrapped(ALL)}", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert_inert(run.stdout + run.stderr)
    assert json.loads(run.stdout)["knowledge_points"]


@payloads
def test_ingest_skipped_file_line_is_inert(home, capsys, tmp_path, payload):  # noqa: F811
    bad = tmp_path / "in" / f"{wrapped(payload)}.pdf"
    bad.parent.mkdir()
    bad.write_bytes(b"%PDF-1.4 not really a pdf")
    code, out, err = cli(capsys, "ingest", "--no-embed", str(bad))
    assert code == 1
    line = next(x for x in err.splitlines() if x.startswith("paperpilot: skipped "))
    assert_inert(line)


def test_hub_watch_lines_and_its_log_records_are_inert(tmp_path):
    """A watched file whose name holds every payload fails to index: its report line (stdout) and the
    watcher's log warning (stderr, through the CLI's last-resort log handler) are both inert."""
    data, folder = tmp_path / "home", tmp_path / "inbox"
    data.mkdir(mode=0o700)
    folder.mkdir()
    proc = subprocess.Popen([sys.executable, "-c", MAIN, "hub", "watch", str(folder), "--collection", "inbox"],
                            cwd=REPO, env={**os.environ, "PAPERPILOT_HOME": str(data)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    def line(stream, deadline_s: float) -> str:
        ready, _, _ = select.select([stream], [], [], deadline_s)
        assert ready, "no output from hub watch"
        return stream.readline()

    try:
        assert "watching" in line(proc.stdout, 60)
        (folder / f"{wrapped(ALL)}.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
        report = line(proc.stdout, 120)
        logged = line(proc.stderr, 30)
        assert "failed" in report and "could not index" in logged
        assert_inert(report)
        assert_inert(logged)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


def test_hub_log_records_are_inert(tmp_path):
    """``hub.log`` (the hub's own log file) keeps what a record quotes without its control sequences."""
    code = ("import logging, sys; from pathlib import Path; from core.hub.__main__ import setup_logging; "
            "setup_logging(Path(sys.argv[1])); logging.getLogger('paperpilot.hub').warning('could not index %s', "
            "sys.argv[2]); logging.getLogger('paperpilot.hub').error('line two %s', sys.argv[2])")
    subprocess.run([sys.executable, "-c", code, str(tmp_path), wrapped(ALL)], cwd=REPO, check=True, timeout=60)
    text = (tmp_path / "hub.log").read_text(encoding="utf-8")
    assert text.count(f"{BEFORE} {AFTER}") == 2
    assert_inert(text)


@payloads
def test_ask_rendering_of_a_hub_answer_is_inert(payload, capsys):
    from paperpilot_tui.cli.ask_render import render_result

    result = recorded_events("compare")[-1].result
    text = wrapped(payload)
    sources = [s.model_copy(update={"title": text, "breadcrumb": text}) for s in result.sources]
    result = result.model_copy(update={"final_answer": f"{text}\n\n{result.final_answer}", "sources": sources,
                                       "notices": [text], "hub": text})
    render_result(result)
    assert_inert(capsys.readouterr().out)


@payloads
def test_sessions_and_memory_listings_are_inert(home, capsys, payload):  # noqa: F811
    from core.config import load_settings
    from core.stores import open_stores

    stores = open_stores(load_settings(use_user_file=False)).open_all()
    stores.facts.add(f"LoRA {wrapped(payload)}")
    stores.sessions.begin_turn_sync("s1", "LoRA rank")
    stores.sessions.end_turn_sync("s1")
    stores.sessions.rename("s1", wrapped(payload))
    stores.close()
    for argv in (["memory", "list"], ["memory", "search", "LoRA"], ["memory", "audit"], ["memory", "list", "--json"],
                 ["sessions", "list"], ["sessions", "show", "s1"], ["sessions", "list", "--json"]):
        code, out, err = cli(capsys, *argv)
        assert code == 0, (argv, err)
        if argv[1] == "audit":  # audit lists only the facts it flags: the words may be absent
            assert not UNSAFE.search(out + err)
        else:
            assert_inert(out + err)


def test_hub_status_document_listing_is_inert(home, capsys, tmp_path):  # noqa: F811
    """``hub status --collection C`` lists each document's stored title and path."""
    doc = tmp_path / "docs" / f"{wrapped(ALL)}.md"
    doc.parent.mkdir()
    doc.write_text(f"# {wrapped(ALL)}\n\nOrreries model the solar system with gears.\n", encoding="utf-8")
    code, out, err = cli(capsys, "ingest", "--no-embed", "--collection", "esc", str(doc))
    assert code == 0, err
    code, out, err = cli(capsys, "hub", "status", "--collection", "esc")
    assert code == 0, err
    listing = [line for line in out.splitlines() if line.startswith("  ")]
    assert listing, out
    assert_inert("\n".join(listing))
