"""The offline brain reads a PDF's table rows and captions as answer sentences.

The chunks are made as the hub makes them from an invented paper: the PDF reader's table text
(``| row label | column: value |`` rows filed under the table's caption) and caption text, cut by
the real chunker, which puts a table's rows on one line.
"""

from __future__ import annotations

from core.brains.base import SynthesisRequest
from core.brains.offline import OfflineBrain
from core.brains.offline.critic import claims, support
from core.brains.offline.evidence import profile, relevant_indexes
from core.brains.offline.text import passage_sentences, table_label
from core.hub.chunking import chunk_blocks
from core.hub.pdf import _table_text
from core.hub.readers import Block
from core.state import Intent, RetrievedContext
from tests.support.vocab import bundled_vocabulary

VOCAB = bundled_vocabulary()  # the bundled collection's names, as a turn over it has them

TITLE = "Burrow: Scheduling Batch Jobs on Shared Clusters"
CAPTION = "Table 2: Queueing delay of the Burrow scheduler on three workloads"
ROWS = [["Workload", "Median delay", "Tail delay"],
        ["Interactive", "12 ms", "85 ms"],
        ["Nightly batch", "340 ms", "2.9 s"],
        ["Mixed", "57 ms", "610 ms"]]


def chunk(block: Block, n: int) -> RetrievedContext:
    (piece,) = chunk_blocks([block])  # the real chunker: one chunk, rows joined as the hub stores them
    return RetrievedContext(content=piece.text, source="/papers/burrow.pdf", title=TITLE, doc_id="burrow",
                            chunk_id=f"burrow#{n}", breadcrumb=" > ".join(piece.section_path))


TABLE = chunk(Block([TITLE, "5 Evaluation", CAPTION], _table_text(ROWS), 7, kind="table"), 1)
BODY = chunk(Block([TITLE, "5 Evaluation"], "We run every workload for one week on a cluster of 400 machines. "
                   "Burrow keeps a separate queue per tenant and admits jobs in order of their deadlines.",
                   7, kind="body"), 2)
FIGURE = chunk(Block([TITLE, "4 Design", "Figure 3"],
                     "Figure 3: The admission path of a job through the tenant queues and the placement stage "
                     "(In the figure: q1 q2 q3 admit place) (In the text: Figure 3 follows one job from "
                     "submission to placement. Each job waits in the queue of its tenant.)", 5, kind="caption"), 3)


def answer(question: str, contexts: list[RetrievedContext]) -> str:
    intent = Intent(type="factual", confidence=0.9, reformulated_query=question)
    return OfflineBrain(vocabulary=VOCAB).compose(SynthesisRequest(kind="simple", question=question, intent=intent, contexts=contexts))


def test_rows_joined_on_one_line_read_one_sentence_each_named_after_their_table() -> None:
    assert TABLE.content.count("\n") == 0 and TABLE.content.startswith("| Interactive |")
    label = table_label(TABLE.breadcrumb)
    assert label == "Table 2 (Queueing delay of the Burrow scheduler on three workloads)"
    rows = passage_sentences(TABLE.content, table=label)
    assert rows == [f"In {label}, Interactive: Median delay 12 ms, Tail delay 85 ms.",
                    f"In {label}, Nightly batch: Median delay 340 ms, Tail delay 2.9 s.",
                    f"In {label}, Mixed: Median delay 57 ms, Tail delay 610 ms."]
    # a Markdown table (header row, then a rule) keeps its header-led reading
    assert passage_sentences("| Model | Accuracy |\n|---|---|\n| X | 0.91 |") == ["Model: X; Accuracy: 0.91."]


def test_a_long_caption_names_its_table_by_its_first_sentence() -> None:
    """A caption that goes on to explain the table (cut by the reader where it grew long) names the
    table by its first sentence: a full stop inside the row sentence would split it into a claim
    with no marker, which the critic rejects."""
    crumb = f"{TITLE} > 5 Evaluation > Table 4: Tenants of the trace. Using a limited set of tenants (e.g. those…"
    label = table_label(crumb)
    assert label == "Table 4 (Tenants of the trace)"
    (row,) = passage_sentences("| Tenant A | jobs: 12 |", table=label)
    text = answer("How many jobs does Tenant A submit in the trace?",
                  [TABLE.model_copy(update={"content": "| Tenant A | jobs: 12 |", "breadcrumb": crumb})])
    found, _ = claims(text.split("\n\n")[0])
    assert row == "In Table 4 (Tenants of the trace), Tenant A: jobs 12." and len(found) == 1
    assert support(found[0], [TABLE.model_copy(update={"content": "| Tenant A | jobs: 12 |", "breadcrumb": crumb})]) == (True, "")


def test_a_row_with_abbreviated_column_names_is_one_claim_its_chunk_backs() -> None:
    """Columns named by abbreviations ("Thr.", "Cov."): "Cov. 9%" read as the end of a sentence, and the
    rest of the row ("9%, Accuracy 0.52, …") became a claim without a marker, which the critic rejects
    (a retry then dropped the right row). The row sentence drops the column name's full stop."""
    rows = "| Thr.: 0.65 | Accuracy: 0.45 | Cov.: 9% | Accuracy: 0.52 | Cov.: 16% |"
    crumb = f"{TITLE} > 6 Confidence > Table 5: Accuracy above a confidence threshold"
    ctx = TABLE.model_copy(update={"content": rows, "breadcrumb": crumb})
    (row,) = passage_sentences(rows, table=table_label(crumb))
    assert row == ("In Table 5 (Accuracy above a confidence threshold), Thr.: 0.65: Accuracy 0.45, Cov 9%, "
                   "Accuracy 0.52, Cov 16%.")
    found, _ = claims(row[:-1] + " [1].")
    assert len(found) == 1 and support(found[0], [ctx]) == (True, "")


def test_a_row_of_a_table_without_caption_is_one_claim() -> None:
    """A table the reader found no caption for is filed under "Table, p. 7"; its rows are named after
    the page without an abbreviation's full stop, which would cut each row into a claim with no marker
    ("In the table on p.") that the critic rejects as uncited."""
    crumb = f"{TITLE} > 5 Evaluation > Table, p. 7"
    label = table_label(crumb)
    assert label == "the table on page 7"
    bare = TABLE.model_copy(update={"breadcrumb": crumb})
    text = answer("What is the tail delay of Burrow for the nightly batch workload?", [BODY, bare])
    first = text.split("\n\n")[0]
    assert "In the table on page 7, Nightly batch: Median delay 340 ms, Tail delay 2.9 s [2]." in first, text
    found, _ = claims(first)
    assert found and all(support(c, [BODY, bare]) == (True, "") for c in found), found


def test_a_question_about_a_cell_is_answered_with_its_row_and_citation() -> None:
    text = answer("What is the tail delay of Burrow for the nightly batch workload?", [BODY, TABLE])
    first = text.split("\n\n")[0]
    assert "Nightly batch: Median delay 340 ms, Tail delay 2.9 s [2]." in first
    found, _ = claims(first)
    assert found and all(support(c, [BODY, TABLE]) == (True, "") for c in found)  # caption words: the breadcrumb's


def test_a_row_chunk_is_about_what_its_caption_names() -> None:
    """When a name of the question is in no chunk, its other words must meet in one sentence:
    a row's words meet the caption's words in its row sentence."""
    q = "What queueing delay does Burrow reach on the mixed workload with Quokka placement?"
    prof = profile(q, Intent(type="factual", confidence=0.9, entities=["Burrow", "Quokka"], reformulated_query=q), vocab=VOCAB)
    assert relevant_indexes([TABLE], prof) == [0]
    uncaptioned = TABLE.model_copy(update={"breadcrumb": f"{TITLE} > 5 Evaluation"})
    assert relevant_indexes([uncaptioned], prof) == []  # the row alone does not say "queueing"


def test_a_caption_answers_a_question_about_its_figure_as_a_sentence_of_its_own() -> None:
    assert passage_sentences(FIGURE.content)[:2] == [
        "Figure 3: The admission path of a job through the tenant queues and the placement stage.",
        "Figure 3 follows one job from submission to placement."]
    # a long caption the chunker cut: the next chunk opens inside the figure's drawn labels
    assert passage_sentences("(In the figure: q1 q2 admit) (In the text: Each job waits in its queue.)") == [
        "Each job waits in its queue."]
    text = answer("What does Figure 3 of the Burrow paper show?", [BODY, FIGURE])
    assert text.startswith("Figure 3: The admission path of a job through the tenant queues and the placement stage [2].")
    assert "q1 q2" not in text and "(In the" not in text


def test_an_ordinary_chunks_title_and_section_do_not_back_a_claim() -> None:
    """Only a table row reads its caption as part of the evidence: a claim made of an ordinary
    chunk's title and section words is not supported by that chunk's text."""
    from core.brains.offline.critic import Claim

    title_words = Claim(f"{TITLE} evaluation [1].")
    assert not support(title_words, [BODY])[0]


def test_an_answer_quoting_a_row_does_not_quote_its_tables_caption_again() -> None:
    """The row sentence names its table ("In Table 2 (Queueing delay …), Mixed: …"); the caption's own
    sentence, quoted after it, said the same again (a reviewer: "the caption is repeated as a sentence")."""
    caption = chunk(Block([TITLE, "5 Evaluation", "Table 2"], f"{CAPTION} (In the text: Table 2 reports the "
                          "queueing delay of each workload.)", 7, kind="caption"), 4)
    text = answer("How long is the queueing delay of the Burrow scheduler on its workloads?", [TABLE, caption, BODY])
    assert text.startswith("In Table 2 (Queueing delay of the Burrow scheduler on three workloads), "), text
    assert "Table 2: Queueing delay" not in text, text
