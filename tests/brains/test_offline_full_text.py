"""The offline brain on chunks of long invented papers: a chunk deep inside a paper states a detail
without naming the paper's subject ("the test set", "it"), and a table's rows and its caption are
read together."""

from __future__ import annotations

from core.brains.base import SynthesisRequest
from core.brains.offline import OfflineBrain
from core.brains.offline.evidence import profile, relevant_indexes, sentence_pool
from core.state import Intent, RetrievedContext
from tests.support.vocab import bundled_vocabulary

VOCAB = bundled_vocabulary()  # the bundled collection's names, as a turn over it has them

TITLE = "Heron: Sparse Retrieval for Legal Search"


def ctx(n: int, text: str, doc: str = "heron", title: str = TITLE, crumb: str = "4 Experiments") -> RetrievedContext:
    return RetrievedContext(content=text, source=f"/papers/{doc}.pdf", title=title, doc_id=doc,
                            chunk_id=f"{doc}#{n}", breadcrumb=f"{title} > {crumb}")


NAMES = ctx(1, "We evaluate Heron on the Docket-40 collection of court filings. "
               "Docket-40 holds forty thousand filings from appeals courts.")
DETAIL = ctx(2, "The annotators labelled 1,200 query and filing pairs over three weeks. "
                "Two lawyers resolved every disagreement between the annotators.")
OTHER = ctx(3, "Annotators labelled 900 query and filing pairs for the Brief-10 benchmark.",
            doc="kite", title="Kite: Dense Passage Ranking")


def answer(question: str, contexts: list[RetrievedContext]) -> str:
    intent = Intent(type="factual", confidence=0.9, reformulated_query=question)
    return OfflineBrain(vocabulary=VOCAB).compose(SynthesisRequest(kind="simple", question=question, intent=intent, contexts=contexts))


def test_a_chunk_of_a_relevant_paper_needs_only_part_of_the_question_words() -> None:
    q = "How many query and filing pairs did the annotators label for Docket-40, and who settled disagreements?"
    prof = profile(q, vocab=VOCAB)
    assert prof.entities == ["Docket-40"]
    # the detail chunk never names Docket-40, but its paper's other chunk does
    assert relevant_indexes([NAMES, DETAIL, OTHER], prof) == [0, 1]
    text = answer(q, [NAMES, DETAIL, OTHER])
    assert "1,200 query and filing pairs" in text and "900" not in text


def test_a_chunk_of_the_same_paper_with_too_few_of_the_question_words_stays_out() -> None:
    q = "How many query and filing pairs did the annotators label for Docket-40, and who settled disagreements?"
    aside = ctx(4, "The filings were scanned by the court clerks and converted to text in 2019.")
    assert relevant_indexes([NAMES, aside], profile(q, vocab=VOCAB)) == [0]


def test_the_rows_of_one_table_do_not_crowd_out_every_other_sentence() -> None:
    """Rows of a table whose caption shares the question's words are alternatives to each other:
    the answer quotes at most two of them (the other places go to other sentences)."""
    from core.hub.chunking import chunk_blocks
    from core.hub.pdf import _table_text
    from core.hub.readers import Block

    caption = "Table 3: Filings in the Docket-40 collection by court and year of filing"
    rows = [["Court", "Filings", "Year"], ["Appeals", "1,200", "2015"], ["District", "1,150", "2016"],
            ["Tax", "1,250", "2017"], ["Claims", "1,240", "2018"]]
    (piece,) = chunk_blocks([Block([TITLE, "3 Data", caption], _table_text(rows), 3, kind="table")])
    table = RetrievedContext(content=piece.text, source="/papers/heron.pdf", title=TITLE, doc_id="heron",
                             chunk_id="heron#5", breadcrumb=" > ".join(piece.section_path))
    total = ctx(6, "Docket-40 holds 4,840 filings in all, filed by four courts between 2015 and 2018.", crumb="3 Data")
    text = answer("How many filings does the Docket-40 collection hold, by court and year?", [table, total])
    assert text.count("In Table 3") == 2
    assert "4,840 filings in all" in text


def test_a_question_asking_for_a_number_opens_with_a_sentence_that_states_one() -> None:
    caption = ctx(7, "Figure 2: Time the annotators needed to label one query and filing pair.", crumb="3 Data > Figure 2")
    said = ctx(8, "Labelling one query and filing pair took the annotators 4 minutes on average.", crumb="3 Data")
    q = "How long did the annotators need to label one query and filing pair in Heron?"
    first = answer(q, [caption, said]).split("\n\n")[0]
    assert first.startswith("Labelling one query and filing pair took the annotators 4 minutes")


def test_a_bylines_contact_line_is_never_a_candidate_answer() -> None:
    """A PDF's first chunk under its title is often the byline: names, affiliation and e-mail. Its
    words (a country, a university, the authors' names) may match a question, but it states nothing
    about the work, so it never joins the sentences an answer is chosen from."""
    byline = ctx(0, "Ada Marsh and Ben Lowe Centre for Legal Informatics University of Padua, Italy "
                    "(ada.marsh|ben.lowe)@unipd.it", crumb="")
    data = ctx(4, "The Italian filings come from the regional courts of appeal of Italy. "
                  "They were collected over two years from public court records.")
    prof = profile("Where do the Italian filings of Marsh and Lowe come from?", vocab=VOCAB)
    pool = sentence_pool([byline, data], prof, only_relevant=False)
    assert [s.ctx for s in pool] == [1, 1]
