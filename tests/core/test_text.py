"""core.text: the shared text primitives, and that no other module of core writes its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from core import text
from core.text import (FACT_STOPWORDS, LONG_FORM_STOPWORDS, LOWER_LEAD_WORDS, OPENING_WORDS, SEARCH_STOPWORDS, STOPWORDS,
                       TOPIC_STOPWORDS, content_terms, fold_ascii, line_sentences, nfkc, numbers, singular, snowball,
                       split_sentences, stem, tokens)

CORE = Path(__file__).resolve().parents[2] / "core"
# a regex that ends a sentence after ".", "!" or "?": a lookbehind on the three marks in any order
_SENTENCE_END = re.compile(r"\(\?<=\[(?=[^\]]*\.)(?=[^\]]*!)(?=[^\]]*\?)[^\]]*\]")
_MIN_WORDS = 20


def _literal_words(node: ast.AST) -> list[str]:
    """The words of a ``frozenset("a b c".split())`` or ``frozenset({"a", "b"})`` literal, else []."""
    if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("frozenset", "set") and node.args):
        return []
    arg = node.args[0]
    if (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "split"
            and isinstance(arg.func.value, ast.Constant) and isinstance(arg.func.value.value, str)):
        return arg.func.value.value.split()
    if isinstance(arg, (ast.Set, ast.List, ast.Tuple)):
        return [e.value for e in arg.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _text_helpers(path: Path) -> list[str]:
    """What in ``path`` is a stop-word list (a literal of more than 20 lower-case words, half of them base
    stop words), a sentence-ending regex, or a function named ``sentences``/``split_sentences``."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        words = _literal_words(node)
        lower = [w for w in words if w.islower()]
        if len(lower) > _MIN_WORDS and sum(w in STOPWORDS for w in lower) * 2 >= len(lower):
            found.append(f"{path.name}:{node.lineno} a stop-word list of {len(words)} words")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _SENTENCE_END.search(node.value):
            found.append(f"{path.name}:{node.lineno} a sentence-ending regex")
        if isinstance(node, ast.FunctionDef) and re.fullmatch(r"_?(split_)?sentences", node.name):
            found.append(f"{path.name}:{node.lineno} def {node.name}")
    return found


def test_no_module_of_core_but_core_text_defines_stop_words_or_a_sentence_splitter():
    found = [f for p in sorted(CORE.rglob("*.py")) if p != CORE / "text.py" for f in _text_helpers(p)]
    assert found == []


def test_the_structural_check_finds_what_it_looks_for(tmp_path):
    words = " ".join(sorted(STOPWORDS)[:30])
    planted = tmp_path / "planted.py"
    planted.write_text(f'import re\nSTOP = frozenset("""{words}""".split())\n'
                       'END = re.compile(r"(?<=[!?.])\\s+")\n'
                       'def sentences(text):\n    return END.split(text)\n', encoding="utf-8")
    assert len(_text_helpers(planted)) == 3
    assert _text_helpers(CORE / "text.py")  # the module itself holds them


def test_each_use_is_the_base_list_with_a_stated_difference():
    assert SEARCH_STOPWORDS < FACT_STOPWORDS | {"whose"} and FACT_STOPWORDS - {"compared"} < STOPWORDS
    assert len(STOPWORDS) == 159 and len(SEARCH_STOPWORDS) == 60 and len(FACT_STOPWORDS) == 86
    assert TOPIC_STOPWORDS - STOPWORDS == text.PAPER_WORDS - STOPWORDS and len(TOPIC_STOPWORDS) == 205
    assert LOWER_LEAD_WORDS <= STOPWORDS and LONG_FORM_STOPWORDS - STOPWORDS == {"called", "named", "namely", "based"}
    assert OPENING_WORDS < STOPWORDS and len(OPENING_WORDS) == 23


def test_stems():
    assert [stem(w) for w in ["models", "tuned", "tuning", "studies", "boxes", "loss", "LoRA", "gpt-3", "use"]] == [
        "model", "tun", "tun", "study", "box", "loss", "lora", "gpt-3", "use"]
    assert [singular(w) for w in ["Ranks", "loss", "gas", "is"]] == ["rank", "loss", "gas", "is"]
    assert snowball(["running", "models"]) == ["run", "model"]


def test_a_plural_and_its_singular_stem_alike():
    """A noun's plural meets its singular: the light stemmer took "-es" off "sizes" and "cases" ("siz",
    "cas") but kept "size" and "case" whole, took "-ing" off "embedding" but only "-s" off "embeddings",
    and left Latin and Greek plurals ("corpora", "criteria", "matrices") apart from their singulars, so a
    question asking for a paper's "corpora" or "sizes" shared no term with "the Zephyr corpus" or
    "the model size"."""
    pairs = [("sizes", "size"), ("cases", "case"), ("embeddings", "embedding"), ("settings", "setting"),
             ("corpora", "corpus"), ("criteria", "criterion"), ("matrices", "matrix"), ("analyses", "analysis"),
             ("hypotheses", "hypothesis"), ("indices", "index")]
    assert [stem(p) for p, _ in pairs] == [stem(s) for _, s in pairs]
    assert content_terms("Which corpora and model sizes?") == content_terms("Which corpus and model size?")
    # words that are no noun plural keep their stems
    assert [stem(w) for w in ["proposes", "uses", "was", "does", "news", "data", "LoRAs"]] == [
        "propos", "use", "was", "doe", "new", "data", "lora"]


def test_tokens_and_content_terms():
    assert tokens("Low-rank models 中文字") == ["low-rank", "model", "中文", "文字"]
    assert content_terms("How does the low-rank adapter compare? [2]", drop_frame=True, parts=True) == [
        "low-rank", "low", "rank", "adapter"]


def test_sentences_keep_abbreviations_and_decimals_whole():
    assert split_sentences("We use e.g. NF4 here. Fig. 2 shows 3.5 points! Then 中文。下一句") == [
        "We use e.g. NF4 here.", "Fig. 2 shows 3.5 points!", "Then 中文。", "下一句"]
    assert line_sentences("A rank of 8 works.\nA rank of 4 fails. So it goes") == [
        "A rank of 8 works.", "A rank of 4 fails.", "So it goes"]


def test_a_bullet_run_into_a_paragraph_starts_a_sentence_after_a_colon_too():
    """A PDF list read into one paragraph: its first item opens with a bullet after the colon that
    introduces the list, as well as after a full stop. Before, "… to evaluate it: • Reputable." was
    one sentence. A bullet-shaped operator inside a sentence ("f ◦ g", "rotated by 90 ◦", "u • v")
    cuts nothing."""
    assert split_sentences("We could use 748 sites to evaluate it: • Reputable. 563 sites were good. "
                           "• Spam. 135 sites were spam.") == [
        "We could use 748 sites to evaluate it:", "• Reputable.", "563 sites were good.", "• Spam.",
        "135 sites were spam."]
    for whole in ("Each image is rotated by 90 ◦ and then cropped.", "We define h = f ◦ g as the composition.",
                  "The score is u • v for the pair.", "The loss x * y is small."):
        assert split_sentences(whole) == [whole]


def test_the_chunker_variant_folds_an_initial_and_a_closing_quote():
    out = split_sentences('As J. Smith said "it works." Then it ran.', end=text.CHUNK_SENTENCE_END,
                          abbreviation=text.CHUNK_ABBREVIATION, rejoin=" ")
    assert out == ['As J. Smith said "it works.', "Then it ran."]


def test_numbers_and_unicode():
    assert numbers("In Table 2, 1,000 steps at 0.50 lr and 3 epochs") == {"1000", "0.5", "3"}
    assert nfkc("ﬁne-tuning\u00ad") == "fine-tuning"
    assert fold_ascii("Schölkopf") == "Scholkopf"


def test_an_end_mark_with_a_closing_bracket_or_quote_after_it_ends_a_sentence():
    """"… apart.) The rest …" and "… called “Tern.” It …": the bracket or quote closes after the end mark,
    and the sentence ends there (before, the two sentences were read as one)."""
    assert split_sentences("We count them apart.) The rest were shelved.") == [
        "We count them apart.)", "The rest were shelved."]
    assert split_sentences("The system is called “Tern.” It reads ledgers.") == [
        "The system is called “Tern.”", "It reads ledgers."]
    assert split_sentences("See the results (e.g.) Then more.") == ["See the results (e.g.) Then more."]
