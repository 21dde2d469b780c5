"""A question that asks for the best, highest or lowest value over a results table is answered by the
row that holds it (core.brains.offline.extremes). The sentence scorer rates every row of a table
alike (each carries the caption and the column names), so before, the direct answer opened with
whichever row it happened to rank first. Over an invented paper and its invented table."""

from __future__ import annotations

from core.brains.offline.compose import asks_value, simple
from core.brains.offline.evidence import profile, sentence_pool
from core.brains.offline.extremes import abbreviations, direction, extreme_row, named_cell_row, table_rows, value
from core.state import RetrievedContext
from tests.support.vocab import bundled_vocabulary

VOCAB = bundled_vocabulary()

TITLE = "WISP: Sparse Tuning for Speech Translation"
CAPTION = "Table 4: Word error rate of each tuner on the lecture-talks (lt) and phone-calls (pc) data."
TABLE = RetrievedContext(
    chunk_id="wisp#7", source="/papers/wisp.pdf", doc_id="wisp", title=TITLE,
    breadcrumb=f"{TITLE} > 5 Results > {CAPTION}",
    content="| Tuner A | Data: dev-lt | Features: base | #Features: 20 | dev-lt: 19.4 | test-lt: 18.2 * |\n"
            "| Tuner A | Data: dev-lt | Features: +lex,pos | #Features: 90k | dev-lt: 17.9 | test-lt: 17.5 |\n"
            "| Tuner B | Data: train-lt | Features: +lex | #Features: 60k | dev-lt: 17.1 | test-lt: 16.3 ** |\n"
            "| Tuner B | Data: train-lt | Features: +lex,pos | #Features: 90k | dev-lt: 17.6 | test-lt: 16.9 |")
PROSE = RetrievedContext(
    chunk_id="wisp#6", source="/papers/wisp.pdf", doc_id="wisp", title=TITLE, breadcrumb=f"{TITLE} > 5 Results",
    content=f"{CAPTION} Tuner B trained on the full training data.")
BEST = "Tuner B: Data train-lt, Features +lex, #Features 60k, dev-lt 17.1, test-lt 16.3"


def test_the_direct_answer_opens_with_the_row_that_holds_the_asked_extreme() -> None:
    q = "What is the best word error rate on the lecture-talks test set in the WISP paper, and which tuner and feature set give it?"
    prof = profile(q, vocab=VOCAB)
    pool = sentence_pool([PROSE, TABLE], prof)
    lead = simple(pool, prof, [PROSE, TABLE])[0].split("\n\n")[0]
    assert lead.startswith("In Table 4 (Word error rate of each tuner on the lecture-talks (lt) and phone-calls (pc) data), "
                           + BEST), lead


def test_the_direction_is_the_asked_one_and_the_best_error_is_the_lowest() -> None:
    assert direction("What is the best BLEU score on the test set?") == 1
    assert direction("Which setting gives the highest accuracy?") == 1
    assert direction("What is the best word error rate?") == -1
    assert direction("Which model has the lowest perplexity?") == -1
    assert direction("What is the worst error rate?") == 1
    assert direction("What accuracy does WISP reach?") == 0
    assert direction("What are the best and the worst BLEU scores?") == 0


def test_cells_abbreviations_and_a_declined_choice() -> None:
    assert value("28.81 ^123") == 28.81 and value("100k") == 100000 and value("74.1%") == 74.1
    assert value("–") is None and value("+lex,pos") is None
    assert abbreviations([CAPTION]) == {"lt": "lecture-talks", "pc": "phone-calls"}
    rows = list(table_rows([TABLE]).items())
    assert len(rows) == 4
    asked = "What is the lowest word error rate on the lecture-talks test set?"
    assert BEST in extreme_row(asked, rows, [CAPTION])
    # dev-lt and test-lt name "lecture-talks" equally: the row must hold the least in both (it does) ...
    both = "What is the lowest word error rate on the lecture-talks data?"
    assert BEST in extreme_row(both, rows, [CAPTION])
    # ... and when they disagree, which row is asked is unclear
    split = [(st, [*c[:4], "dev-lt: 15.0", c[5]] if "Tuner A" in st and "+lex,pos" in st else c) for st, c in rows]
    assert extreme_row(both, split, [CAPTION]) is None
    assert extreme_row("What word error rate does Tuner B reach on the lecture-talks test set?", rows, [CAPTION]) is None
    tied = [(s, [*c[:-1], "test-lt: 16.3"]) for s, c in rows]  # every row the same value
    assert extreme_row(asked, tied, [CAPTION]) is None


PIPIT = "PIPIT: Decoding Speech for Reading Tests"
PIPIT_CAPTION = RetrievedContext(
    chunk_id="pipit#4", source="/papers/pipit.pdf", doc_id="pipit", title=PIPIT, breadcrumb=f"{PIPIT} > 4 Results > Table 2",
    content="Table 2: Gains from adapting the two models of the decoder to the children's reading-test recordings, in "
            "word error rate. (In the text: We also report the word error rate of the lattices for each decoder "
            "configuration.)")
PIPIT_ROWS = RetrievedContext(  # the reader cuts a long caption short in the breadcrumb the rows are read under
    chunk_id="pipit#5", source="/papers/pipit.pdf", doc_id="pipit", title=PIPIT,
    breadcrumb=f"{PIPIT} > 4 Results > Table 2: Gains from adapting the two models of the decoder to…",
    content="| Baseline | greedy (%): 41.3 | beam (%): 36.0 | lattice (%): 24.9 | "
            "| AM (acoustic model) adaptation | greedy (%): 26.2 | beam (%): 25.0 | lattice (%): 14.8 | "
            "| LM (language model) adaptation | greedy (%): 30.4 | beam (%): 29.9 | lattice (%): 18.7 | "
            "| AM+LM adaptation | greedy (%): 27.5 | beam (%): 26.1 | lattice (%): 15.2 |")


def test_the_row_least_in_every_column_answers_when_the_caption_leads() -> None:
    """"The lowest word error rate" over columns greedy, beam and lattice (each an error rate, none
    named): the row least in all three answers. Its rows carry a caption cut short, so the scorer
    ranks them far below the caption and a sentence that discusses the table; the caption's table
    is read all the same."""
    q = "Which decoder configuration gets the lowest word error rate on the reading-test recordings in the PIPIT paper?"
    prof = profile(q, vocab=VOCAB)
    contexts = [PIPIT_CAPTION, PIPIT_ROWS]
    lead = simple(sentence_pool(contexts, prof), prof, contexts)[0].split("\n\n")[0]
    assert lead.startswith("In Table 2 (Gains from adapting the two models of the decoder to…), "
                           "AM (acoustic model) adaptation: greedy (%) 26.2"), lead


HERON = "HERON: Bag-Level Metrics for Weakly Labelled Audio"
HERON_SETUP = RetrievedContext(
    chunk_id="heron#3", source="/papers/heron.pdf", doc_id="heron", title=HERON, breadcrumb=f"{HERON} > 4 Experiments",
    content="We evaluate HERON on three audio collections, the Birdsong set, which is single-label, and two "
            "multi-label sets, and report the mean accuracy over 10 folds with its standard deviation. "
            "The mean accuracy of every method on the Birdsong set is listed in Table 1.")
HERON_TABLE = RetrievedContext(
    chunk_id="heron#4", source="/papers/heron.pdf", doc_id="heron", title=HERON,
    breadcrumb=f"{HERON} > 4 Experiments > Table 1: Mean accuracy on the Birdsong set",
    content="| HERON | Accuracy: 0.744 ± 0.031 | Folds: 10 |\n"
            "| BagSVM (bag support vector machine) | Accuracy: 0.690 ± 0.040 | Folds: 10 |\n"
            "| Nearest bag | Accuracy: 0.612 ± 0.052 | Folds: 10 |")


def test_a_question_naming_a_row_and_its_column_opens_with_that_row() -> None:
    """"What mean accuracy does HERON reach on the Birdsong set?": the set-up sentences share more of its
    words (and state values: 10 folds, three collections) than the row that answers it; the row whose
    label and column the question names opens the direct answer."""
    q = "What mean accuracy does the HERON method reach on the single-label Birdsong set?"
    prof = profile(q, vocab=VOCAB)
    contexts = [HERON_SETUP, HERON_TABLE]
    lead = simple(sentence_pool(contexts, prof), prof, contexts)[0].split("\n\n")[0]
    assert lead.startswith("In Table 1 (Mean accuracy on the Birdsong set), HERON: Accuracy 0.744 ± 0.031"), lead


def test_the_named_row_is_found_only_when_one_row_is_named_and_its_value_is_new() -> None:
    rows = list(table_rows([HERON_TABLE]).items())
    heron = next(s for s, _ in rows if "HERON:" in s)
    assert named_cell_row("What accuracy does HERON reach?", rows) == heron
    # the label's words outside its parentheses name it
    assert "BagSVM" in named_cell_row("What accuracy does BagSVM get?", rows)
    # no row named, or no column of it named: no row
    assert named_cell_row("What accuracy does the best method reach?", rows) is None
    assert named_cell_row("What does HERON learn from?", rows) is None
    # a question that already states the value asks from the row, not for it
    assert named_cell_row("Which method reaches an accuracy of 0.744?", rows) is None
    # two rows named as fully: unclear which
    assert named_cell_row("What accuracy do HERON and BagSVM reach?", rows) is None


def test_only_a_question_for_a_value_asks_for_a_cell() -> None:
    """"How is HERON's accuracy computed?" names the row and the column too, but asks how, not what."""
    asks = lambda q: asks_value(profile(q, vocab=VOCAB))  # noqa: E731
    assert asks("What mean accuracy does HERON reach on the Birdsong set?")
    assert asks("Which area under the curve does HERON get on Birdsong?")
    assert asks("How much accuracy does HERON gain over BagSVM?")
    assert not asks("How is the mean accuracy of HERON computed over the Birdsong folds?")
    assert not asks("Why does HERON reach a higher accuracy than BagSVM, and what explains it?")


def test_chinese_superlatives_ask_for_the_extreme_row() -> None:
    """"最低的词错误率" asks for the least error rate, "最高的准确率" for the greatest accuracy, "最好的
    错误率" for the least again (less is better); the PIPIT table's row least in every column answers."""
    assert direction("哪种配置的词错误率最低？") == -1
    assert direction("哪个模型的准确率最高？") == 1
    assert direction("最好的词错误率是多少？") == -1
    assert direction("最好的准确率是多少？") == 1
    assert direction("这篇论文用了什么数据？") == 0
    rows = list(table_rows([PIPIT_ROWS]).items())
    hit = extreme_row("PIPIT 论文里，哪种解码器配置在朗读测试录音上的词错误率最低？", rows)
    assert hit is not None and "AM (acoustic model) adaptation: greedy (%) 26.2" in hit, hit


WREN = "WREN: Translating Noun Phrases through Shared Vectors"
WREN_ROWS = RetrievedContext(  # a threshold per row (its label names its column) and two directions' accuracy
    chunk_id="wren#9", source="/papers/wren.pdf", doc_id="wren", title=WREN,
    breadcrumb=f"{WREN} > 6 Confidence > Table 5: Accuracy and coverage when translating above a confidence threshold",
    content="| Thr.: 0.00 | Accuracy: 0.18 | Cov.: 100% | Accuracy: 0.27 | Cov.: 100% |\n"
            "| Thr.: 0.40 | Accuracy: 0.24 | Cov.: 61% | Accuracy: 0.45 | Cov.: 58% |\n"
            "| Thr.: 0.50 | Accuracy: 0.39 | Cov.: 12% | Accuracy: 0.33 | Cov.: 20% |")


def test_the_column_named_after_the_superlative_is_the_one_whose_extreme_is_asked() -> None:
    """"Above the highest confidence threshold, what accuracy …": the threshold (its row labels, "Thr.: 0.50")
    holds the extreme, not the accuracy the question also names (the second direction's accuracy is
    highest in another row, so reading both named columns declined before)."""
    rows = list(table_rows([WREN_ROWS]).items())
    q = "When WREN only translates above the highest confidence threshold in its thresholding table, what accuracy does it reach?"
    hit = extreme_row(q, rows)
    assert hit is not None and "Thr.: 0.50" in hit, hit
    # with no column after the superlative, the named column decides as before
    assert "Thr.: 0.40" in extreme_row("Which threshold gives the highest accuracy in the second direction?",
                                       [(s, [c[0], c[3]]) for s, c in rows])
