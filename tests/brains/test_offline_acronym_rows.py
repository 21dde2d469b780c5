"""A question names a measure in words; the paper's table labels it with the acronym its prose
defines. With the acronym spelled out in the rows (core.hub.pdf.acronyms), the offline brain's
scorer ranks the row that states the value above the sentence that only defines the measure.
The paper is invented; the chunks are cut by the real chunker as the hub stores them."""

from __future__ import annotations

from core.brains.offline import scorer
from core.brains.offline.evidence import profile, sentence_pool
from core.brains.offline.synthesis import relevance
from core.hub.chunking import chunk_blocks
from core.hub.pdf import _table_text
from core.hub.pdf.acronyms import expand_tables
from core.hub.readers import Block
from core.state import RetrievedContext
from tests.support.vocab import bundled_vocabulary

VOCAB = bundled_vocabulary()  # the bundled collection's names, as a turn over it has them

TITLE = "Tern: Aligning Words in Noisy Monolingual Corpora"
CAPTION = "Table 1: Results of the Tern aligner on the Heron corpus"
ROWS = [["Measure", "Heron"], ["Precision", "88.10%"], ["Recall", "84.30%"], ["AER", "13.72%"]]
PROSE = ("Alignment Error Rate (AER) is measured to gauge the quality of the aligned corpus. "
         "We align all 4,000 sentence pairs of the Heron corpus with the Tern aligner in 2 hours.")


def contexts() -> list[RetrievedContext]:
    blocks = [Block([TITLE, "3 Data"], PROSE, 3, kind="body"),
              Block([TITLE, "3 Data", CAPTION], _table_text(ROWS), 3, kind="table")]
    expand_tables(blocks)
    out = []
    for n, piece in enumerate(chunk_blocks(blocks), 1):
        out.append(RetrievedContext(content=piece.text, source="/papers/tern.pdf", title=TITLE, doc_id="tern",
                                    chunk_id=f"tern#{n}", breadcrumb=" > ".join(piece.section_path)))
    return out


def test_the_row_labelled_with_the_acronym_holds_its_long_form():
    table = [c for c in contexts() if c.breadcrumb.endswith(CAPTION)]
    assert "| AER (Alignment Error Rate) | Heron: 13.72% |" in table[0].content


def test_a_question_in_words_ranks_the_acronyms_row_above_the_sentence_that_defines_it():
    """The scorer's best sentence is the row that states the value; with the bare "AER" row it was
    the prose sentence that only defines the measure."""
    question = "What alignment error rate does the Tern aligner reach on the Heron corpus?"
    prof = profile(question, vocab=VOCAB)
    pool = sentence_pool(contexts(), prof)
    scorer.prime([question, *(s.text for s in pool)])
    best = max(pool, key=lambda s: relevance(s, prof))
    assert "13.72%" in best.text and best.text.startswith("In Table 1")
