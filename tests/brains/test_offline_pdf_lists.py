"""A PDF's bulleted list comes out of the reader run into one paragraph ("… Empty. 56 ledgers were empty.
• Lost. 12 ledgers were lost to the tide. • Unknown. We could not check 9 ledgers."). Each bullet
starts a sentence: a quoted sentence never carries the next item's label ("… to the tide. • Unknown"),
and the bullet is no part of a sentence. Invented text."""

from __future__ import annotations

from core.brains.base import SynthesisRequest
from core.brains.offline import OfflineBrain
from core.brains.offline.text import passage_sentences
from core.state import Intent, RetrievedContext
from core.text import split_sentences
from tests.support.vocab import bundled_vocabulary

LIST = ("We sorted the 400 audited ledgers into groups. • Empty. 56 ledgers were empty. • Lost. 12 ledgers were "
        "lost to the tide before the audit. • Unknown. We could not check 9 ledgers with the records we had.")


def test_a_bullet_starts_a_sentence_and_is_dropped_from_it():
    assert split_sentences("… lost to the tide. • Unknown. We could not check them.") == [
        "… lost to the tide.", "• Unknown.", "We could not check them."]
    assert passage_sentences(LIST) == [
        "We sorted the 400 audited ledgers into groups.", "Empty.", "56 ledgers were empty.", "Lost.",
        "12 ledgers were lost to the tide before the audit.", "Unknown.",
        "We could not check 9 ledgers with the records we had."]


async def test_an_answer_from_a_run_in_list_quotes_the_item_alone():
    ctx = RetrievedContext(content=LIST, source="/papers/quokka.md", title="Quokka Ledger Audits",
                           chunk_id="quokka#0", doc_id="quokka")
    q = "How many ledgers were lost to the tide in the Quokka audit?"
    brain = OfflineBrain(vocabulary=bundled_vocabulary())
    text = brain.compose(SynthesisRequest(kind="simple", question=q, contexts=[ctx],
                                          intent=Intent(type="factual", confidence=0.9, reformulated_query=q)))
    assert "12 ledgers were lost to the tide" in text
    assert "•" not in text and "tide before the audit. Unknown" not in text, text


def test_a_list_run_in_after_a_colon_is_cut_from_its_lead_in_and_the_lead_in_cites_as_a_sentence():
    """"We sorted them into groups: • Empty. …" (a colon before the first bullet): the lead-in is a
    sentence of its own, and quoted it ends with a full stop after its marker, not "groups: [1] Then"."""
    from core.brains.offline.synthesis import cite

    text = LIST.replace("groups. • Empty", "groups: • Empty")
    assert passage_sentences(text)[:3] == ["We sorted the 400 audited ledgers into groups:", "Empty.",
                                           "56 ledgers were empty."]
    assert cite("We sorted the ledgers into groups:", [1]) == "We sorted the ledgers into groups [1]."
    assert cite("It held 12 ledgers.", [2]) == "It held 12 ledgers [2]."


def test_a_sentence_ending_a_parenthesis_of_several_is_quoted_without_its_closing_bracket():
    """A parenthesis of several sentences ("(Ledgers of the north wing … We count them apart.)") leaves its
    first sentence with an opening bracket and its last with a closing one that pair with nothing in them;
    and "… apart.) The rest …" was not cut at all (an end mark with a bracket after it ended no sentence).
    A bracket the sentence opens itself stays."""
    text = ("The audit covers 400 ledgers. (Ledgers of the north wing were kept in a separate room. "
            "We count them apart from the rest.) The rest were shelved by year (from 1820 to 1910.)")
    assert passage_sentences(text) == ["The audit covers 400 ledgers.",
                                        "Ledgers of the north wing were kept in a separate room.",
                                        "We count them apart from the rest.",
                                        "The rest were shelved by year (from 1820 to 1910.)"]
