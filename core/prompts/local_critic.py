"""The local critic's text protocol: the prompt it reads and the critique it writes.

Shared by the DPO data generator (training) and the inference wrapper (``core.models.critic``) so
training and use see exactly the same text. A critique is a few ``KEY: value`` lines that even a
135M model can learn to emit; :func:`parse_critique` is tolerant (any case, extra text, JSON) and
returns ``None`` when nothing usable is there, so the caller can fall back.
"""

from __future__ import annotations

import json
import re
from typing import Any

from core.types import CriticVerdict

CRITIC_SYSTEM = (
    "You are a strict reviewer of research answers. Check every claim against the numbered "
    "contexts: citations present, numbers supported, all entities and dimensions covered, "
    "nothing contradicting a context."
)


def _clip(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def build_critic_prompt(question: str, intent: str, contexts: list[Any], answer: str,
                        sub_questions: list[str] | None = None, *, max_context_chars: int = 300) -> str:
    """The user message the critic sees. ``contexts`` are RetrievedContext objects or dicts."""
    lines = [f"Question: {question.strip()}", f"Intent: {intent}"]
    if sub_questions:
        lines.append("Sub-questions: " + " | ".join(_clip(q, 120) for q in sub_questions))
    lines.append("Contexts:")
    for i, ctx in enumerate(contexts, 1):
        content = ctx.get("content", "") if isinstance(ctx, dict) else getattr(ctx, "content", "")
        lines.append(f"[{i}] {_clip(content, max_context_chars)}")
    lines += ["Answer:", answer.strip(), "", "Write the review as VERDICT, SCORE, FAITHFULNESS, "
              "COMPLETENESS, ISSUES and FEEDBACK lines."]
    return "\n".join(lines)


def format_critique(passed: bool, score: float, faithfulness: float, completeness: float,
                    issues: list[str], feedback: str) -> str:
    """The canonical critique text (what the DPO ``chosen`` side looks like)."""
    issue_lines = [f"- {i}" for i in issues] or ["- none"]
    return "\n".join([
        f"VERDICT: {'pass' if passed else 'fail'}",
        f"SCORE: {score:g}",
        f"FAITHFULNESS: {faithfulness:.2f}",
        f"COMPLETENESS: {completeness:.2f}",
        "ISSUES:", *issue_lines,
        f"FEEDBACK: {feedback}",
    ])


_NUM = r"([0-9]+(?:\.[0-9]+)?)"


def _field(text: str, key: str) -> str | None:
    m = re.search(rf"(?im)^\W*{key}\W*[:=]\s*(.+)$", text)
    return m.group(1).strip() if m else None


def _number(text: str | None, hi: float) -> float | None:
    if not text:
        return None
    m = re.search(_NUM, text)
    if not m:
        return None
    value = float(m.group(1))
    if hi == 1 and value > 1 and value <= 10:
        value /= 10  # a 0..1 field written on a 0..10 scale
    return max(0.0, min(hi, value))


def _from_json(text: str) -> dict | None:
    m = re.search(r"\{.*\}", text, re.S)
    if not m:
        return None
    try:
        data = json.loads(m.group(0))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def parse_critique(text: str) -> CriticVerdict | None:
    """Read a critique (KEY: value lines or a JSON object) into a verdict; ``None`` if unusable."""
    if not text or not text.strip():
        return None
    data = _from_json(text)
    if data is not None and ("passed" in data or "score" in data):
        try:
            return CriticVerdict.model_validate({k: v for k, v in data.items() if k in CriticVerdict.model_fields})
        except ValueError:
            pass
    verdict = _field(text, "verdict")
    score = _number(_field(text, "score"), 10)
    if verdict is None and score is None:
        return None
    if verdict is not None and re.search(r"\b(pass|passed|ok|accept)", verdict, re.I):
        passed = True
    elif verdict is not None and re.search(r"\b(fail|failed|reject|retry)", verdict, re.I):
        passed = False
    else:
        passed = (score or 0) >= 7
    if score is None:
        score = 8.0 if passed else 4.0
    faith = _number(_field(text, "faithfulness"), 1)
    comp = _number(_field(text, "completeness"), 1)
    issues: list[str] = []
    block = re.search(r"(?is)issues\W*:?\s*\n(.*?)(?:\n\s*feedback\W*[:=]|\Z)", text)
    if block:
        for line in block.group(1).splitlines():
            item = line.strip().lstrip("-*• ").strip()
            if item and item.lower() not in {"none", "n/a", "no issues"}:
                issues.append(item)
    feedback = _field(text, "feedback") or ""
    return CriticVerdict(
        passed=passed, score=score,
        faithfulness=faith if faith is not None else (0.9 if passed else 0.5),
        completeness=comp if comp is not None else (0.9 if passed else 0.6),
        issues=issues[:8], feedback=_clip(feedback, 400),
    )


def critic_messages(prompt: str) -> list[dict]:
    """The chat messages for one review: the fixed system line plus the built prompt."""
    return [{"role": "system", "content": CRITIC_SYSTEM}, {"role": "user", "content": prompt}]


REACT_STEP_SYSTEM = (
    "You steer a research agent's retrieval loop. At each critical step pick the strategy, decide "
    "whether to continue searching or stop, or switch strategy. Reply as [Decision] ... [Action] ... "
    "[Reason] ..."
)
_ACTION = re.compile(r"\[Action\]\s*(.+)")
_DECISION = re.compile(r"\[Decision\]\s*(\S+)")


def react_step_messages(prompt: str) -> list[dict]:
    """The chat messages for one ReAct critical step (D1 strategy, D2 continue/stop, D3 switch)."""
    return [{"role": "system", "content": REACT_STEP_SYSTEM}, {"role": "user", "content": prompt}]


def preference_messages(row: dict) -> list[dict]:
    """The prompt messages of a preference row: ReAct-step rows carry ``decision_point``."""
    return react_step_messages(row["prompt"]) if "decision_point" in row else critic_messages(row["prompt"])


def parse_react_step(text: str) -> tuple[str, str] | None:
    """``(decision, action)`` from a ``[Decision] … [Action] …`` reply ("" when a D1 reply has no
    decision; the action is its first word: a strategy, ``search`` or ``answer``), or None."""
    decision, action = _DECISION.search(text or ""), _ACTION.search(text or "")
    if not action or not action.group(1).split():
        return None
    return (decision.group(1).strip().lower() if decision else "",
            action.group(1).split()[0].strip().rstrip(":").lower())
