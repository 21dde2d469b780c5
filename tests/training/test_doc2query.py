"""doc2query: which sentence gets which kind of question, and which LLM-written questions are kept."""

from __future__ import annotations

import json

from training.data.doc2query import OUT_FILE, accept, answer_span
from training.data.generate_scorer import llm_questions

SENT = "On the Fen test set, KESTREL lowers the word error rate from 9.1% to 7.4% with sparse adapters."


def test_the_asked_value_is_a_stated_number_or_another_name() -> None:
    assert answer_span(SENT, "KESTREL") == ("number", "9.1")
    assert answer_span("Figure 3 compares PLOVER with GPT-4 on Marsh.", "PLOVER") == ("name", "GPT-4")
    assert answer_span("We release the code under an open licence.", "PLOVER") == ("", "")


def test_a_question_is_kept_only_when_answerable_without_copying_or_giving_the_answer() -> None:
    assert accept("What word error rate does KESTREL reach on Fen?", SENT, "7.4", "KESTREL") == ""
    assert accept("Does KESTREL bring its error down to 7.4% on Fen?", SENT, "7.4", "KESTREL") == "gives answer"
    assert accept("Why does KESTREL lower the word error rate from 9.1%?", SENT, "", "KESTREL") == "copies"
    assert accept("How fast is KESTREL at inference?", SENT, "", "KESTREL") == "unanswerable"
    assert accept("Which model?", SENT, "", "KESTREL") == "form"
    assert accept("What does KESTREL do\nwith adapters?", SENT, "", "KESTREL") == "form"


def test_kept_questions_come_from_training_papers_and_join_the_data(tmp_path) -> None:
    rows = [json.loads(ln) for ln in OUT_FILE.read_text(encoding="utf-8").splitlines()]
    assert rows and all(r["paper"].split(":")[0] in ("abstract", "corpus", "synthetic") for r in rows)
    assert all(r["model"] and r["kind"] in ("number", "name", "reason", "function", "idea") for r in rows)
    kept = llm_questions()
    assert sum(map(len, kept.values())) == sum(not r["rejected"] for r in rows) > 0
    mine = tmp_path / "q.jsonl"
    mine.write_text(json.dumps({**rows[0], "rejected": "copies"}) + "\n", encoding="utf-8")
    assert llm_questions(mine) == {}


def test_a_kept_row_sharing_a_four_word_run_with_an_evaluation_question_is_marked(tmp_path) -> None:
    from training.data.doc2query import drop_overlapping

    path = tmp_path / "q.jsonl"
    rows = [{"question": "What word error rate does KESTREL reach?", "rejected": ""},
            {"question": "Why does PLOVER route tokens?", "rejected": ""},
            {"question": "Does PLOVER beat Gemini-1.5-pro?", "rejected": ""},
            {"question": "What word error rate is low?", "rejected": "copies"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert drop_overlapping(["Which word error rate does KESTREL get?", "Is Gemini 1.5 Pro better?"], path) == 2
    got = [json.loads(ln)["rejected"] for ln in path.read_text(encoding="utf-8").splitlines()]
    assert got == ["overlaps an evaluation question", "", "overlaps an evaluation question", "copies"]


def test_no_server_is_one_line_and_a_nonzero_exit_with_the_file_untouched(tmp_path) -> None:
    import socket
    import subprocess
    import sys

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rows = tmp_path / "rows.jsonl"
    rows.write_text(OUT_FILE.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    before = rows.read_bytes()  # every planned request but the first is unasked, so the run tries one
    out = subprocess.run([sys.executable, "-m", "training.data.doc2query", "--url", f"http://127.0.0.1:{port}",
                          "--limit", "1", "--out", str(rows)], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert out.stderr.strip().count("\n") == 0 and "doc2query: no question from" in out.stderr
    assert "Traceback" not in out.stderr
    assert rows.read_bytes() == before


def test_later_rounds_ask_new_sentences_and_keep_the_first_rounds_numbers() -> None:
    from training.data.doc2query import plan

    first, more = plan(31), plan(31, rounds=3)
    assert more[:len(first)] == first  # a longer run resumes the committed requests by their numbers
    assert len(more) > 2 * len(first)
    asked = [(r["paper"], r["index"]) for r in more]
    assert len(asked) == len(set(asked))  # no sentence is asked about twice
