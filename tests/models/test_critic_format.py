"""The critic text protocol: prompts are built the same way everywhere; reviews parse tolerantly."""

from __future__ import annotations

from core.prompts.local_critic import build_critic_prompt, format_critique, parse_critique
from core.state import RetrievedContext


def test_prompt_numbers_contexts_and_clips():
    ctx = [RetrievedContext(content="LoRA uses rank 8. " * 40, chunk_id="a"), {"content": "QLoRA uses NF4.", "chunk_id": "b"}]
    prompt = build_critic_prompt("Compare LoRA and QLoRA", "comparative", ctx, "Answer [1].", ["What is LoRA?"])
    assert "[1] LoRA uses rank 8." in prompt and "[2] QLoRA uses NF4." in prompt
    assert "Sub-questions: What is LoRA?" in prompt and "Intent: comparative" in prompt
    assert max(len(line) for line in prompt.splitlines()) < 320


def test_canonical_review_round_trips():
    text = format_critique(False, 3, 0.4, 0.9, ["unsupported number: 37% is not in [2]"], "Use the figure from [2].")
    v = parse_critique(text)
    assert v is not None and not v.passed and v.score == 3 and v.faithfulness == 0.4
    assert v.issues == ["unsupported number: 37% is not in [2]"] and v.feedback == "Use the figure from [2]."
    ok = parse_critique(format_critique(True, 9, 0.95, 0.95, [], "Fine."))
    assert ok is not None and ok.passed and ok.issues == []


def test_tolerant_parsing():
    v = parse_critique('Sure! {"passed": false, "score": 4, "completeness": 0.5, "faithfulness": 0.6, "issues": ["x"]}')
    assert v is not None and not v.passed and v.issues == ["x"]
    v = parse_critique("verdict = PASS\nscore: 12/10\nfaithfulness: 9")
    assert v is not None and v.passed and v.score == 10 and v.faithfulness == 0.9
    v = parse_critique("Score: 5")
    assert v is not None and not v.passed
    assert parse_critique("") is None and parse_critique("I think it is nice.") is None
