"""Fact size limits and malformed ``memory import`` files: one line, exit 1, nothing half-imported.

The CLI runs in-process against a private home and a real SQLite file; limits are made small with a
settings file where that keeps the inputs small, and one test uses the defaults.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.config import LimitsSettings, MemorySettings
from core.memory.facts import FactStore
from tests.support.cli import cli

GOOD = {"content": "LoRA trains low-rank update matrices."}


@pytest.fixture
def small(tmp_path):
    """A settings file with small limits: facts of 60 characters, import files of 2 kB."""
    cfg = tmp_path / "settings.yaml"
    cfg.write_text("limits:\n  fact_chars: 60\n  import_file_bytes: 2000\n", encoding="utf-8")
    return str(cfg)


def facts(capsys, *config: str) -> list[dict]:
    code, out, _ = cli(capsys, *config, "memory", "list", "--json")
    assert code == 0
    return json.loads(out)


def one_line_error(code: int, out: str, err: str, *needles: str) -> None:
    assert code == 1 and out == "", (code, out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err


def test_add_and_edit_over_the_fact_limit_are_refused_and_keep_the_old_text(home, capsys, small):
    one_line_error(*cli(capsys, "--config", small, "memory", "add", "x" * 61), "limits.fact_chars", "61 characters")
    assert facts(capsys, "--config", small) == []
    assert cli(capsys, "--config", small, "memory", "add", GOOD["content"])[0] == 0
    [fact] = facts(capsys, "--config", small)
    one_line_error(*cli(capsys, "--config", small, "memory", "edit", str(fact["id"]), "y " * 40), "limits.fact_chars")
    assert [f["content"] for f in facts(capsys, "--config", small)] == [GOOD["content"]]


def test_the_default_fact_limit_is_2000_characters(home, capsys):
    assert LimitsSettings().fact_chars == 2000
    one_line_error(*cli(capsys, "memory", "add", "z" * 2001), "limits.fact_chars", "2,000")
    assert cli(capsys, "memory", "add", "z" * 2000)[0] == 0


def test_an_import_file_over_the_size_limit_is_refused_before_reading(home, capsys, small, tmp_path):
    big = tmp_path / "big.jsonl"
    big.write_text("\n".join(json.dumps({"content": f"fact number {i} about LoRA"}) for i in range(100)),
                   encoding="utf-8")
    one_line_error(*cli(capsys, "--config", small, "memory", "import", str(big)),
                   str(big), "limits.import_file_bytes", "nothing imported")
    assert facts(capsys, "--config", small) == []


BAD_LINES = {
    "invalid JSON": (b'{"content": "unclosed', "not a JSON line"),
    "not an object": (b"[1, 2, 3]", "expected a JSON object"),
    "a number": (b"42", "expected a JSON object"),
    "no content": (b'{"text": "LoRA is a method."}', "no 'content'"),
    "content not a string": (b'{"content": ["LoRA"]}', "'content' must be a string"),
    "content without text": (b'{"content": "  [1] "}', "no text"),
    "created not a number": (b'{"content": "LoRA is neat.", "created": "yesterday"}', "'created' must be a number"),
    "pinned not a bool": (b'{"content": "LoRA is neat.", "pinned": "yes"}', "'pinned' must be true or false"),
    "not UTF-8": ('{"content": "caf\u00e9 au lait"}'.encode("latin-1"), "not UTF-8"),
    "fact too long": (json.dumps({"content": "w" * 61}).encode(), "limits.fact_chars"),
}


@pytest.mark.parametrize("case", list(BAD_LINES))
def test_a_bad_line_names_file_and_line_and_imports_nothing(home, capsys, small, tmp_path, case):
    line, needle = BAD_LINES[case]
    path = tmp_path / "facts.jsonl"
    path.write_bytes(json.dumps(GOOD).encode() + b"\n\n" + line + b"\n" + json.dumps(GOOD).encode() + b"\n")
    one_line_error(*cli(capsys, "--config", small, "memory", "import", str(path)),
                   f"{path}:3:", needle, "nothing imported")
    assert facts(capsys, "--config", small) == []  # the good first line was not imported either


@pytest.mark.parametrize("kind", ["directory", "missing"])
def test_a_directory_or_a_missing_file_is_one_line(home, capsys, tmp_path, kind):
    path = tmp_path / "facts.d"
    if kind == "directory":
        path.mkdir()
    one_line_error(*cli(capsys, "memory", "import", str(path)), str(path),
                   "is a directory" if kind == "directory" else "No such file")


def test_a_good_import_still_works_and_skips_duplicates(home, capsys, tmp_path):
    path = tmp_path / "facts.jsonl"
    rows = [GOOD, "QLoRA quantizes the frozen base model to 4-bit NF4.",
            {**GOOD, "pinned": True, "created": 1700000000, "source_question": "What is LoRA?", "keywords": ["x"]}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    code, out, err = cli(capsys, "memory", "import", str(path))
    assert code == 0 and "2 new" in out, err
    assert sorted(f["content"] for f in facts(capsys)) == sorted([GOOD["content"], rows[1]])


def test_the_agent_never_memorizes_a_fact_over_the_limit(tmp_path):
    """Facts the agent extracts from answers obey the same limit (they are skipped, not cut)."""
    store = FactStore(tmp_path / "s.sqlite3", MemorySettings(), limits=LimitsSettings(fact_chars=60),
                      embedder=lambda texts: np.eye(len(texts), 384, dtype=np.float32))
    try:
        res = store.memorize_sync(["LoRA trains low-rank matrices.", "L" * 61])
        assert res.facts == ["LoRA trains low-rank matrices."] and store.count() == 1
    finally:
        store.close()
