"""The slash-command table, parsing, ``@paper`` mentions and completion, without the app."""

from __future__ import annotations

import pytest

from paperpilot_tui import slash
from paperpilot_tui.ingest_meter import IngestMeter

DOCS = [("glimmerbeam", "Glimmerbeam: Sparse Attention over Star Catalogues"),
        ("thistlenet", "Thistlenet: Spiky Convolutions for Pollen Images"),
        ("thistle-notes", "Field Notes on Thistles")]


def test_every_command_parses_with_its_argument():
    assert slash.parse("/collection  mine ").arg == "mine"
    assert slash.parse("/LLM offline").command.name == "llm"
    assert slash.parse("/research how do sparse attention methods scale").arg == \
        "how do sparse attention methods scale"
    for name in ("session", "memory", "export", "help"):
        assert slash.parse(f"/{name}").command.name == name
    assert {c.name for c in slash.COMMANDS} == {"collection", "ingest", "research", "session", "memory", "export",
                                               "llm", "help"}


@pytest.mark.parametrize("text, line", [
    ("/colection mine", "unknown command /colection (did you mean /collection?); /help lists the commands"),
    ("/frobnicate", "unknown command /frobnicate; /help lists the commands"),
    ("/collection", "/collection needs NAME: /collection NAME"),
    ("/llm gpt", "/llm takes one of: offline, openai (not 'gpt')"),
    ("/memory all of it", "/memory takes no argument; /help lists the commands"),
])
def test_a_bad_command_is_one_line(text, line):
    with pytest.raises(slash.SlashError) as err:
        slash.parse(text)
    assert str(err.value) == line and "\n" not in line


def test_double_slash_is_a_question_and_plain_text_no_command():
    assert slash.is_command("  /help") and not slash.is_command("//etc is a folder?")
    assert not slash.is_command("What is /dev/null?")
    assert slash.literal("//etc is a folder?") == "/etc is a folder?"


def test_ingest_arguments_quote_spaces_and_take_a_collection(tmp_path):
    assert slash.ingest_args('a.pdf "my papers/b.pdf" arxiv:2106.09685 --collection mine') == (
        ["a.pdf", "my papers/b.pdf", "arxiv:2106.09685"], "mine")
    assert slash.ingest_args("~/x.pdf")[0][0].endswith("/x.pdf") and "~" not in slash.ingest_args("~/x.pdf")[0][0]
    for bad in ('"open', "--collection", "a.pdf --collection"):
        with pytest.raises(slash.SlashError):
            slash.ingest_args(bad)


def test_a_mention_scopes_the_question_to_one_document_and_reads_as_a_question():
    got = slash.resolve("How much memory does @[Glimmerbeam: Sparse Attention over Star Catalogues] save?", DOCS)
    assert got == slash.Scoped("How much memory does Glimmerbeam save?", "glimmerbeam",
                               "Glimmerbeam: Sparse Attention over Star Catalogues")
    assert slash.resolve("@glimmer what does it cut?", DOCS) == slash.Scoped(  # a word of the title, leading
        "Glimmerbeam: what does it cut?", "glimmerbeam", "Glimmerbeam: Sparse Attention over Star Catalogues")
    assert slash.resolve("@thistlenet what does it classify?", DOCS).doc_id == "thistlenet"  # the exact id
    assert slash.resolve("what does @[Field Notes on Thistles] say?", DOCS).question == \
        "what does Field Notes on Thistles say?"  # no short name: the whole title
    assert slash.resolve("mail me at me@example.org", DOCS) == slash.Scoped("mail me at me@example.org")


@pytest.mark.parametrize("text, needle", [
    ("@thistle what is it?", "names 2 documents"),
    ("@[Nothing Like This] what?", "no document of the active collection has that title"),
    ("@glimmerbeam vs @thistlenet", "one @paper per question"),
])
def test_a_mention_that_names_no_single_document_is_refused(text, needle):
    with pytest.raises(slash.SlashError) as err:
        slash.resolve(text, DOCS)
    assert needle in str(err.value)


def test_completion_offers_commands_collections_choices_titles_and_paths(tmp_path):
    names = [c.insert for c in slash.complete("/co")]
    assert names == ["/collection "]
    assert len(slash.complete("/")) == len(slash.COMMANDS)
    assert [c.insert for c in slash.complete("/collection m", collections=["default", "mine", "more"])] == \
        ["mine", "more"]
    assert [c.insert for c in slash.complete("/llm o")] == ["offline", "openai"]
    got = slash.complete("why does @thist", docs=DOCS)
    assert [c.insert for c in got] == ["@[Field Notes on Thistles]", "@[Thistlenet: Spiky Convolutions for Pollen Images]"]
    assert all((c.start, c.end) == (9, 15) for c in got)
    assert slash.complete("@[Thistlenet: Spiky Convolutions for Pollen Images] what", docs=DOCS) == []
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "a.pdf").write_bytes(b"%PDF")
    (tmp_path / "paper.md").write_text("x")
    (tmp_path / ".hidden").write_text("x")
    assert [c.insert for c in slash.complete("/ingest pa", cwd=tmp_path)] == ["paper.md", "papers/"]
    got = slash.complete("/ingest paper.md papers/", cwd=tmp_path)
    assert [(c.insert, c.start) for c in got] == [("papers/a.pdf", len("/ingest paper.md "))]
    assert slash.complete("What is /dev", docs=DOCS) == []


def test_the_ingest_meter_moves_before_the_first_file_is_written(tmp_path):
    a, b = tmp_path / "a.pdf", tmp_path / "b.pdf"
    a.write_bytes(b"x" * 300)
    b.write_bytes(b"x" * 100)
    clock = iter([0.0, 1.0, 2.0, 4.0, 8.0])
    meter = IngestMeter([a, b], clock=lambda: next(clock))
    first = meter.now()
    assert first.fraction == 0 and first.eta_s is None and "0/2 files" in first.line() and "reading a.pdf" in first.line()
    meter.parsed(a, 10, 20)
    read = meter.now()
    assert read.fraction == pytest.approx(0.2 * 300 / 400) and read.files_done == 0
    meter.embedded(a, 10)
    half = meter.now()
    assert half.fraction == pytest.approx(0.6 * 300 / 400) and half.pages == pytest.approx(5)
    assert half.pages_per_s == pytest.approx(5 / 4) and " 1.25 pages/s" in half.line()
    meter.step(a, "added", 10)
    meter.parsed(b, 2, 0)  # nothing to embed
    meter.step(b, "added", 2)
    done = meter.now()
    assert done.fraction == 1 and done.files_done == 2 and done.pages == pytest.approx(12) and done.eta_s == 0
    assert "2/2 files · 12 pages · 1.50 pages/s" in done.line()
