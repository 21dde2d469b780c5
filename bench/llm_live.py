"""The QA eval with a live OpenAI-compatible endpoint (``--llm openai``) beside the offline brain.

    python bench/llm_live.py [--base-url URL] [--model qwen] [--limit N] [--data DIR ...]
                             [--home DIR] [--timeout S] [--max-tokens N] [--json FILE]

Defaults to the project's reference LLM: Qwen2.5-Coder-0.5B-Instruct (Q4_K_M) served by
llama-cpp-python at ``http://127.0.0.1:8081/v1`` as ``qwen`` (README "A local LLM"). For each data
dir (default: both dev sets, ``../shared/eval/realpapers/dev`` and ``../shared/eval/fullpapers/dev``
next to the repository; each with ``docs/`` and ``questions.jsonl``) it runs ``paperpilot eval qa
--json`` twice on one data dir: offline first (which also indexes the corpus), then with ``--llm
openai`` against the endpoint; then prints both reports side by side: answer-first gold, citation
validity, claim precision before repair, abstention recall, false abstention, the turns whose LLM
draft was replaced by the offline draft (core.brains.llm.floor), wall time and LLM calls per turn.
``--limit N`` takes N questions spread evenly over each file; ``--timeout`` is ``llm.timeout`` (a
small model on a CPU is slow on long prompts). The LLM is meant to be no worse than offline on any
of these measures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = "import sys; from paperpilot_tui.cli.main import main; sys.exit(main())"
ROWS = [  # (label, report key, kind)
    ("gold term (answerable)", "gold_term", "pct"),
    ("answer-first gold", "answer_first_gold", "pct"),
    ("right document", "right_document", "pct"),
    ("citation validity", "citation_validity", "pct"),
    ("claim precision before repair", "claim_precision_before_repair", "pct"),
    ("claim-level citation precision", "claim_citation_precision", "pct"),
    ("abstention recall", "abstention_recall", "pct"),
    ("false abstention", "false_abstention", "pct"),
    ("turns given the offline draft", "offline_draft_turns", "int"),
    ("turns given the offline answer (turn floor)", "offline_answer_turns", "int"),
    ("LLM steps answered offline", "llm_fallbacks", "int"),
    ("LLM calls", ("llm", "calls"), "int"),
    ("failed turns", "errors", "int"),
]
SETS = ("realpapers", "fullpapers")


def default_data() -> list[Path]:
    """Both dev sets beside the repository (or beside the main checkout of a worktree)."""
    for base in (ROOT.parent, ROOT.parent.parent):
        found = [base / "shared" / "eval" / name / "dev" for name in SETS]
        if all(d.is_dir() for d in found):
            return found
    return [ROOT.parent / "shared" / "eval" / name / "dev" for name in SETS]


def sample(questions: Path, limit: int | None, into: Path) -> Path:
    """``limit`` questions spread evenly over the file (its labels come in blocks, the unanswerable
    ones near the end, so a prefix would test one kind), or the whole file."""
    lines = [line for line in questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not limit or limit >= len(lines):
        return questions
    picked = [lines[i * len(lines) // limit] for i in range(limit)]
    into.write_text("\n".join(picked) + "\n", encoding="utf-8")
    return into


def eval_qa(brain: str, data: Path, questions: Path, env: dict, config: Path) -> tuple[dict, float]:
    args = [sys.executable, "-c", CLI, "eval", "qa", "--config", str(config), "--llm", brain, "--json",
            "--corpus", str(data / "docs"), "--questions", str(questions)]
    t0 = time.perf_counter()
    out = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode not in (0, 1):  # 1: some turns failed, the report still counts them
        raise SystemExit(f"eval qa --llm {brain} failed ({out.returncode}): {out.stderr.strip()[-400:]}")
    try:
        return json.loads(out.stdout), wall
    except json.JSONDecodeError:
        raise SystemExit(f"eval qa --llm {brain} printed no JSON: {out.stderr.strip()[-400:]}") from None


def value(report: dict, key, kind: str) -> str:
    v = report[key[0]][key[1]] if isinstance(key, tuple) else report.get(key)
    if v is None:
        return "–"
    return f"{100 * v:.1f}%" if kind == "pct" else str(v)


def table(reports: dict[str, tuple[dict, float]]) -> str:
    names = list(reports)
    lines = ["| metric | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for label, key, kind in ROWS:
        lines.append(f"| {label} | " + " | ".join(value(reports[n][0], key, kind) for n in names) + " |")
    lines.append("| wall time | " + " | ".join(f"{reports[n][1] / 60:.1f} min" for n in names) + " |")
    lines.append("| LLM calls per turn | " + " | ".join(
        f"{reports[n][0]['llm']['calls'] / max(1, reports[n][0]['n']):.1f}" for n in names) + " |")
    return "\n".join(lines)


def run_set(data: Path, args: argparse.Namespace, env: dict, live_env: dict, config: Path,
            home: Path) -> dict[str, tuple[dict, float]]:
    if not (data / "questions.jsonl").is_file() or not (data / "docs").is_dir():
        raise SystemExit(f"{data}: needs docs/ and questions.jsonl (give --data)")
    questions = sample(data / "questions.jsonl", args.limit, home / f"llm-live-{data.parent.name}.jsonl")
    reports = {"offline": eval_qa("offline", data, questions, env, config)}  # indexes the corpus first
    reports[f"--llm openai ({args.model})"] = eval_qa("openai", data, questions, live_env, config)
    n = reports["offline"][0]["n"]
    print(f"QA on {data} ({n} questions; offline first, which also indexes the corpus)\n")
    print(table(reports) + "\n", flush=True)
    return reports


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base-url", default="http://127.0.0.1:8081/v1", help="the OpenAI-compatible endpoint")
    p.add_argument("--model", default="qwen", help="model name the endpoint serves (default qwen)")
    p.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY") or "sk-local")
    p.add_argument("--data", type=Path, action="append", default=None,
                   help="eval data dir with docs/ and questions.jsonl (repeatable; default both dev sets)")
    p.add_argument("--limit", type=int, default=None, metavar="N",
                   help="only N questions of each set, spread evenly over the file (default: all)")
    p.add_argument("--home", type=Path, default=None, help="PAPERPILOT_HOME (default: a temporary one per set)")
    p.add_argument("--timeout", type=float, default=600.0, help="llm.timeout in seconds (default 600)")
    p.add_argument("--max-tokens", type=int, default=None, metavar="N",
                   help="llm.max_tokens, the reply budget per call (default: the setting's 1024); a 0.5B model "
                        "that rambles to the budget spends most of a CPU turn there")
    p.add_argument("--json", type=Path, default=None, metavar="FILE", help="also write the reports here")
    args = p.parse_args(argv)
    out: dict[str, dict] = {}
    for data in [d.resolve() for d in (args.data or default_data())]:
        home = args.home / data.parent.name if args.home else Path(tempfile.mkdtemp(prefix="pp-llm-live-"))
        home.mkdir(parents=True, exist_ok=True)
        config = home / "llm-live.yaml"
        # a turn of several slow calls must not hit agent.turn_deadline (900 s) before llm.timeout does
        budget = f"  max_tokens: {args.max_tokens}\n" if args.max_tokens else ""
        config.write_text(f"llm:\n  timeout: {args.timeout}\n  retries: 1\n{budget}agent:\n  turn_deadline: "
                          f"{max(900.0, 8 * args.timeout)}\n", encoding="utf-8")
        env = {**os.environ, "PAPERPILOT_HOME": str(home)}
        for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PAPERPILOT_LLM_MODEL", "PAPERPILOT_LLM_PROVIDER"):
            env.pop(var, None)
        live_env = {**env, "OPENAI_BASE_URL": args.base_url, "PAPERPILOT_LLM_MODEL": args.model,
                    "OPENAI_API_KEY": args.api_key}
        reports = run_set(data, args, env, live_env, config, home)
        out[str(data)] = {k: {"report": r, "wall_s": w} for k, (r, w) in reports.items()}
        if args.json:
            args.json.write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
