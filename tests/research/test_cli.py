"""``paperpilot research`` as a user runs it: a subprocess, the real stdio hub over the indexed ``hub_db``."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

from tests.research.conftest import TOPIC
from tests.support.ask_proc import write_settings

REPO = Path(__file__).resolve().parents[2]


def pp(home: Path, config: Path, *argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); "
                           "from paperpilot_tui.cli.main import main; sys.exit(main(sys.argv[1:]))", str(REPO),
                           "--offline", "research", "--config", str(config), *argv],
                          cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PAPERPILOT_HOME": str(home)})


def test_print_outline_then_an_edited_outline_then_a_malformed_one(research_home, hub_db, tmp_path):
    config = write_settings(tmp_path / "settings.yaml", hub_db)
    shown = pp(research_home, config, "--no-clarify", "--print-outline", TOPIC, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    outline = json.loads(shown.stdout)
    session = re.search(r"--session (\w+)", shown.stderr).group(1)
    removed = outline["knowledge_points"].pop(1)
    outline["knowledge_points"].append({"id": "KP9", "category": "Reasoning", "topic": "Chain-of-thought prompting",
                                        "search_keywords": ["chain of thought"], "importance": "high"})
    (tmp_path / "o.json").write_text(json.dumps(outline))
    done = pp(research_home, config, "--session", session, "--outline", "o.json", "--out", "r.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.search(r"outline edited: .*\(\+1 −1", done.stderr)
    assert len(re.findall(r"^point \d/\d ", done.stderr, re.M)) == len(outline["knowledge_points"])
    review = (tmp_path / "r.md").read_text()
    bib = tmp_path / "r.bib"  # the review's cited papers as BibTeX, beside it, private
    keys = re.findall(r"^@\w+\{([^,\s]+),", bib.read_text(), re.M)
    assert keys and len(keys) == len(set(keys)) and stat.S_IMODE(bib.stat().st_mode) == 0o600
    assert "wrote r.md and r.bib" in done.stderr
    assert "### Chain-of-thought prompting" in review and f"### {removed['topic']}\n" not in review
    assert "## Research gaps and future directions" in review

    outline["knowledge_points"][2]["importance"] = "urgent"
    (tmp_path / "bad.json").write_text(json.dumps(outline))
    bad = pp(research_home, config, "--outline", "bad.json", TOPIC, cwd=tmp_path)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1].startswith("paperpilot: outline file bad.json: knowledge_points[2].importance:")


def test_without_answers_it_prints_the_questions_and_how_to_resume(research_home, hub_db, tmp_path):
    config = write_settings(tmp_path / "settings.yaml", hub_db)
    asked = pp(research_home, config, TOPIC, cwd=tmp_path)
    assert asked.returncode == 0, asked.stderr
    assert re.search(r"^1\. \[scope\] ", asked.stdout, re.M) and "[depth]" in asked.stdout
    session = re.search(r"--session (\w+) --answers", asked.stdout).group(1)
    (tmp_path / "a.json").write_text(json.dumps({"4": "overview"}))
    full = pp(research_home, config, "--session", session, "--answers", "a.json", "--json", cwd=tmp_path)
    assert full.returncode == 0, full.stderr
    data = json.loads(full.stdout)
    assert data["session_id"] == session and data["waiting_for"] is None
    assert len(data["review"]["points"]) == 4 and data["review"]["sources"]
    (tmp_path / "bad.json").write_text('{"one": "x"}')
    bad = pp(research_home, config, "--session", session, "--answers", "bad.json", cwd=tmp_path)
    assert bad.returncode == 2 and "key 'one' is not a question number" in bad.stderr


def test_answers_with_print_outline_stop_at_the_outline(research_home, hub_db, tmp_path):
    """The first call (no --print-outline) must not decide that later calls run through to the review."""
    config = write_settings(tmp_path / "settings.yaml", hub_db)
    asked = pp(research_home, config, TOPIC, cwd=tmp_path)
    session = re.search(r"--session (\w+) --answers", asked.stdout).group(1)
    (tmp_path / "a.json").write_text(json.dumps({"4": "overview"}))
    shown = pp(research_home, config, "--session", session, "--answers", "a.json", "--print-outline", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert len(json.loads(shown.stdout)["knowledge_points"]) == 4
    assert not re.search(r"^point \d", shown.stderr, re.M)


def _sessions(home: Path, config: Path, *argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); "
                           "from paperpilot_tui.cli.main import main; sys.exit(main(sys.argv[1:]))", str(REPO),
                           "sessions", *argv, "--config", str(config)],
                          cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PAPERPILOT_HOME": str(home)})


def test_a_research_session_is_listed_and_shown_by_the_sessions_command(research_home, hub_db, tmp_path):
    """Issue 25 item 4: a deep-research run is found again with `sessions list` and `sessions show`."""
    config = write_settings(tmp_path / "settings.yaml", hub_db)
    done = pp(research_home, config, "--no-clarify", "--session", "deep1", "--out", "r.md", TOPIC, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    listed = _sessions(research_home, config, "list", "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    row = next(r for r in json.loads(listed.stdout) if r["id"] == "deep1")
    assert row["research"] is True and row["title"] == TOPIC
    text = _sessions(research_home, config, "list", cwd=tmp_path)
    assert re.search(rf"^deep1 .*research: {re.escape(TOPIC)}$", text.stdout, re.M), text.stdout
    shown = _sessions(research_home, config, "show", "deep1", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    review = (tmp_path / "r.md").read_text()
    assert shown.stdout.startswith(f"deep1 — research: {TOPIC}")
    assert "## Research gaps and future directions" in shown.stdout
    assert review.splitlines()[0] in shown.stdout
    as_json = json.loads(_sessions(research_home, config, "show", "deep1", "--json", cwd=tmp_path).stdout)
    assert as_json["research"] is True and "## Research gaps" in as_json["review"]
    missing = _sessions(research_home, config, "show", "nosuch", cwd=tmp_path)
    assert missing.returncode == 1 and missing.stderr.strip() == "paperpilot: no session with id nosuch"
