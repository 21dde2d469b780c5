"""The floor an LLM draft must reach to be delivered: the offline draft of the same turn.

A weak model writes over the same numbered evidence the offline engine drafts from (the ``[n]`` of
the prompt are the contexts' order, fixed before either writes). Its draft is delivered only when,
judged by code, it is no worse than the offline draft it would replace on what the project measures:

- it declines only where the offline draft declines too (no false "no evidence");
- its markers are all in range (citation validity), and it cites something when the offline
  draft does;
- its cited claims are supported by their chunks (:func:`core.citations.supports`) at least as
  often as the offline draft's are (claim precision before repair);
- its direct answer carries the offline draft's lead facts: every number and every name of the
  first sentence of the offline draft's direct answer that the question does not already hold
  (answer-first gold is usually such a number or name). The direct answer is what the measures
  call it (:func:`core.brains.offline.verdict.direct_answer`): a chain's **Conclusion**, else the
  first paragraph that is not a heading.

The rule critic is not used here: its learned verdict rewards sentences quoted from the evidence
and scores any paraphrase near 0. Each failed condition is one short phrase for the trace. Every
draft of a turn (first attempt, retries, web fallback) passes through synthesis, so a forced pass
and the memory step only ever see a draft at or above the floor.

**The turn floor** (:func:`turn_floor_problems`, ``llm.turn_floor``) applies the same comparison to a
whole turn: the LLM still steers a turn (its plan, its ReAct searches, its critic's retries), and
those can leave the final draft over other evidence than the offline engine would have read. So the
offline brain answers the same question first, alone (``core.agent``), and the LLM turn's final
draft is compared with that offline answer, each over its own evidence. Below it, the offline answer
is delivered (``core.nodes.turn_floor``). One condition is stricter than per draft: where the
offline turn declines, an LLM answer is below the floor (the offline engine's declines are right on
both dev sets; an answer there is a false answer to an unanswerable question more often than not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.brains.offline.claims import claims as table_claims
from core.brains.offline.verdict import direct_answer
from core.citations import claims, supports
from core.text import LOOSE_SENTENCE_END, line_sentences, name_tokens, written_numbers
from core.types import RetrievedContext, SynthesisRequest

_NO_EVIDENCE = re.compile(r"knowledge base (?:holds|has|contains) no evidence|no evidence in the knowledge base", re.I)
_MARKER = re.compile(r"\[\d+\]")


@dataclass(frozen=True)
class Standing:
    """What the floor compares between two drafts of one request."""

    declines: bool
    cited: int  # (claim, marker) pairs whose marker is in range
    supported: int
    out_of_range: list[int]  # markers past the sources

    @property
    def precision(self) -> float:
        return self.supported / self.cited if self.cited else 0.0


def declines(answer: str) -> bool:
    """The draft says the knowledge base has nothing, and cites nothing."""
    return bool(_NO_EVIDENCE.search(answer)) and not _MARKER.search(answer)


def standing(contexts: list[RetrievedContext], answer: str) -> Standing:
    """How ``answer`` cites ``contexts`` (its ``[n]`` index them)."""
    cited = supported = 0
    out_of_range: list[int] = []
    for claim in claims(answer):
        for n in claim.numbers:
            if not 1 <= n <= len(contexts):
                out_of_range.append(n)
                continue
            cited += 1
            supported += supports(claim.text, contexts[n - 1])
    return Standing(declines(answer), cited, supported, out_of_range)


def lead_facts(answer: str, question: str) -> set[str]:
    """The numbers and names of the first sentence of ``answer``'s direct answer that ``question``
    does not hold."""
    lead = _MARKER.sub("", direct_answer(answer))
    first = next(iter(line_sentences(lead, end=LOOSE_SENTENCE_END, abbreviation=None)), "")
    asked = question.lower()
    return {x for x in (*written_numbers(first), *name_tokens(first)) if x.lower() not in asked}


def floor_problems(request: SynthesisRequest, draft: str, offline: str) -> list[str]:
    """Why ``draft`` falls below the floor set by ``offline`` (the offline brain's draft of the
    same request); none means the LLM draft may be delivered."""
    return _below(request.question, draft, standing(request.contexts, draft), offline,
                  standing(request.contexts, offline), len(request.contexts), decline_is_floor=False)


def turn_floor_problems(question: str, draft: str, contexts: list[RetrievedContext], offline: str,
                        offline_contexts: list[RetrievedContext]) -> list[str]:
    """Why a whole LLM turn's final ``draft`` (over ``contexts``) falls below the offline brain's
    answer to the same question (``offline``, over ``offline_contexts``); none: deliver the LLM's."""
    return _below(question, draft, standing(contexts, draft), offline, standing(offline_contexts, offline),
                  len(contexts), decline_is_floor=True)


def _below(question: str, draft: str, mine: Standing, offline: str, theirs: Standing, sources: int, *,
           decline_is_floor: bool) -> list[str]:
    if mine.declines:
        return [] if theirs.declines else ["the draft declines although the evidence answers the question"]
    if theirs.declines:
        # per draft: the offline engine found no answer in this evidence, and the LLM's cited claims are
        # checked downstream; per turn: the offline turn, with every retry, found none at all
        return ["the draft answers where the offline answer found no evidence"] if decline_is_floor else []
    problems: list[str] = []
    if mine.out_of_range:
        cut = ", ".join(f"[{n}]" for n in dict.fromkeys(mine.out_of_range))
        problems.append(f"the draft cites {cut}, past the {sources} sources")
    if theirs.cited and not mine.cited:
        problems.append("the draft cites no evidence")
    elif mine.cited and mine.precision < theirs.precision:
        problems.append(f"{mine.cited - mine.supported} of its {mine.cited} cited claim(s) are not in their sources")
    lead = _MARKER.sub("", direct_answer(draft)).lower()
    lost = sorted(x for x in lead_facts(offline, question) if x.lower() not in lead)
    if lost:
        problems.append(f"its direct answer lacks {', '.join(lost[:4])} from the offline draft's answer")
    filled = table_rows(offline)
    empty = [label for label, cells in table_rows(draft).items()
             if _key(label) in {_key(k) for k, v in filled.items() if v} and not cells]
    if empty:
        # a comparison's row is its direct answer for that side: declining one the offline answer fills
        # is declining although the evidence answers, one side at a time
        problems.append(f"its table finds no evidence for {', '.join(empty[:4])}, which the offline answer's table cites")
    return problems


def _key(label: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", label.lower())


def table_rows(answer: str) -> dict[str, bool]:
    """A comparison table's rows, read as the offline critic reads them (its cells are claims with the
    row's subject, a "not found" cell an honest gap): label → whether any cell cites a source."""
    found, gaps = table_claims(answer)
    rows = {c.subject: False for c in gaps if c.subject}
    for c in found:
        if c.subject:
            rows[c.subject] = rows.get(c.subject, False) or bool(_MARKER.search(c.text))
    return rows
