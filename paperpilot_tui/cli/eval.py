"""``paperpilot eval``: measure the local router or critic on held-out data they never trained on."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from paperpilot_tui.cli.common import (
    LLM_CHOICES,
    EXIT_BACKEND, EXIT_FAILED, EXIT_OK, EXIT_USAGE, clean, fail, load_settings_or_exit, missing_train_extra,
    run_async, say,
)

HELP = "evaluate answers on your own papers (qa), or the local router, critic or ReAct policy"
DESCRIPTION = """\
qa scores whole answers on documents and questions you bring; the others score a local model on
labelled JSONL (default: the committed held-out split).

  qa      ingest --corpus DIR into its own collection, ask every question of --questions FILE
          through the real agent (as `paperpilot ask` does; follow-ups get their history first),
          and report gold-term accuracy, right-document rate, citation validity, abstention
          (recall on unanswerable, false abstention on answerable), routing per label and language
          with the confusion matrix and calibration error, the critic's pass rate on misses and
          hits, per-strategy scores, seconds per turn, LLM calls and tokens; and the stricter
          measures: gold in the direct answer, gold per document of a comparison, the critic's
          reliability curve, claim support before citation repair, cited text from reference
          lists, page headers or glued headings; --default-settings adds a run with memory on and
          every question in one session (recalled material, unrelated or not); --review N writes
          a blind-review sheet

  router  accuracy, per-label precision/recall/F1, confusion matrix, p50/p95 latency per question
          (default model: the shipped MiniLM LoRA adapter; the rule router is scored alongside)
  critic  pass/fail and defect agreement with the held-out labels, next to the offline rule
          critic on the same data; DPO preference accuracy (chosen more likely than rejected)
          (default model: agent.critic_model, else $PAPERPILOT_HOME/models/critic-smollm2 if trained)
  react   decision agreement per decision point (D1 first strategy, D2 continue or stop, D3
          switch), parse rate and DPO preference accuracy; the rule router on D1 alongside
          (default model: $PAPERPILOT_HOME/models/react-smollm2 if trained)

examples:
  paperpilot eval qa --corpus papers/ --questions questions.jsonl --json
  paperpilot eval qa --corpus papers/ --questions questions.jsonl --llm openai --limit 20
  paperpilot eval qa --corpus papers/ --questions questions.jsonl --default-settings --review 20
  paperpilot eval router --json
  paperpilot eval router --data my_questions.jsonl --model ~/.local/share/paperpilot/models/router-minilm
  paperpilot eval critic --model ~/.local/share/paperpilot/models/critic-smollm2 --limit 30 --json
  paperpilot eval react --limit 12 --json
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("eval", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help="settings file")
    what = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    qa = what.add_parser("qa", help="answers on your own documents and questions",
                         description="Score answers on your own documents. Questions are JSONL rows "
                                     "{id, question, label, docs, must_contain_any, history}; docs: [] marks "
                                     "a question no document answers.")
    qa.add_argument("--corpus", type=Path, required=True, metavar="DIR", help="folder of documents to ingest")
    qa.add_argument("--questions", type=Path, required=True, metavar="FILE", help="questions JSONL")
    qa.add_argument("--collection", metavar="NAME",
                    help="use this existing collection instead of ingesting (default: one named after DIR's content)")
    qa.add_argument("--llm", choices=LLM_CHOICES,
                    default=argparse.SUPPRESS, help="which brain answers")
    qa.add_argument("--limit", type=int, default=None, metavar="N", help="only the first N questions")
    qa.add_argument("--json", action="store_true", help="print one JSON object (with every question's row)")
    qa.add_argument("--default-settings", action="store_true",
                    help="also ask the questions as a user would: memory on, one after another in one session")
    qa.add_argument("--review", type=int, default=0, metavar="N",
                    help="write N random answered questions as a Markdown sheet to score blind (1-5)")
    qa.add_argument("--review-out", type=Path, default=None, metavar="FILE",
                    help="where --review writes (default: $PAPERPILOT_HOME/eval/review-COLLECTION.md)")
    qa.add_argument("--review-seed", type=int, default=0, metavar="N", help="seed of --review's sample")
    qa.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help="settings file")
    qa.set_defaults(run=run_qa)
    for name, help_ in (("router", "intent router"), ("critic", "answer critic"), ("react", "ReAct step policy")):
        q = what.add_parser(name, help=help_)
        q.add_argument("--data", type=Path, default=None, metavar="FILE", help="JSONL (default: held-out split)")
        q.add_argument("--model", type=Path, default=None, metavar="DIR", help="adapter folder")
        q.add_argument("--json", action="store_true", help="print one JSON object")
        if name in ("critic", "react"):
            q.add_argument("--limit", type=int, default=40 if name == "critic" else 30, metavar="N",
                           help="score at most N examples with the generative model (slow on CPU)")
        q.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    settings = load_settings_or_exit(args)
    from core.models.manager import ModelNotAvailable

    if args.data is not None and not args.data.exists():
        return fail(f"{args.data}: no such data file", EXIT_FAILED)
    try:
        if args.what == "router":
            from core.models.manager import SHIPPED_ROUTER
            from core.models.router import load_router_dir
            from training.eval_router import HELDOUT_FILE, evaluate_router, format_report

            model_dir = args.model or SHIPPED_ROUTER
            if (model_dir / "label_map.json").exists() and '"causal_lm"' in (model_dir / "label_map.json").read_text():
                from training.router_sft import load_causal_router

                router = load_causal_router(model_dir)  # an SFT (causal LM) router
            else:
                router = load_router_dir(model_dir)
            report = evaluate_router(router, args.data or HELDOUT_FILE)
            text = format_report(report)
        elif args.what == "react":
            from training.eval_react import HELDOUT_FILE, evaluate_react, format_report

            model = args.model
            default = settings.paths.home_dir() / "models" / "react-smollm2"
            if model is None and (default / "adapter_config.json").exists():
                model = default  # the trained default, if there is one
            report = evaluate_react(args.data or HELDOUT_FILE, model_dir=model, limit=args.limit)
            text = format_report(report)
        else:
            from training.eval_critic import HELDOUT_FILE, evaluate_critic, format_report

            from core.models.critic import critic_dir

            model = args.model
            if model is None and (critic_dir(settings) / "adapter_config.json").exists():
                model = critic_dir(settings)  # the trained default, if there is one
            report = evaluate_critic(args.data or HELDOUT_FILE, model_dir=model, limit=args.limit)
            text = format_report(report)
    except ModelNotAvailable as exc:
        return fail(str(exc), EXIT_FAILED)
    except ImportError as exc:
        line = missing_train_extra(exc, "this evaluation")
        if line is None:
            raise
        return fail(line, EXIT_FAILED)
    except (OSError, ValueError, KeyError) as exc:
        return fail(f"evaluation failed: {exc}", EXIT_FAILED)
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else text)
    return EXIT_OK


def run_qa(args: argparse.Namespace) -> int:
    from core.hub.__main__ import quiet_environment

    quiet_environment()
    settings = load_settings_or_exit(args)
    if args.llm:
        settings.llm.provider = args.llm
    if not args.corpus.is_dir():
        return fail(f"{args.corpus}: not a folder", EXIT_USAGE)
    if not args.questions.is_file():
        return fail(f"{args.questions}: no such questions file", EXIT_USAGE)
    from training.eval_qa import load_questions
    from training.eval_qa_run import collection_for, ingest_corpus

    try:
        questions = load_questions(args.questions)
    except (OSError, ValueError) as exc:
        return fail(str(exc), EXIT_USAGE)
    if args.limit:
        questions = questions[: args.limit]
    if args.review < 0:
        return fail(f"--review {args.review}: give a number of answers, 0 or more", EXIT_USAGE)
    collection = args.collection or collection_for(args.corpus)
    if not args.collection:
        print(f"paperpilot: indexing {args.corpus} into collection {collection!r} (unchanged files are skipped)…",
              file=sys.stderr)
        report = ingest_corpus(settings, args.corpus, collection)
        for path, reason in report.failed:
            say(f"paperpilot: skipped {clean(str(path), multiline=False)}: {reason}", file=sys.stderr)
    return run_async(_qa(settings, args, questions, collection))


async def _qa(settings, args: argparse.Namespace, questions, collection: str) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from core.brains.base import BackendUnavailable
    from core.config import ConfigError
    from training.eval_qa_report import format_report
    from training.eval_qa_run import evaluate_qa

    err = Console(stderr=True)
    with Progress(TextColumn("[bold]eval qa[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=err, transient=True,
                  disable=not err.is_terminal) as progress:
        task = progress.add_task("starting the agent…", total=len(questions))

        def done(outcome) -> None:
            mark = "✓" if outcome.gold_hit or (not outcome.answerable and outcome.abstained) else "✗"
            progress.update(task, advance=1, description=f"{outcome.id} {mark}")

        try:
            report = await evaluate_qa(settings, questions, collection=collection, on_done=done, corpus=args.corpus,
                                       default_settings=args.default_settings)
        except BackendUnavailable as exc:
            return fail(str(exc), EXIT_BACKEND)
        except ConfigError as exc:
            return fail(f"config error: {exc}", EXIT_USAGE)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        Console().print(format_report(report))
    if args.review:
        out = args.review_out or settings.paths.home_dir() / "eval" / f"review-{collection}.md"
        try:
            written = write_review(report, args.review, args.review_seed, out)
        except OSError as exc:
            return fail(f"{out}: cannot write the review sheet ({exc.strerror or exc})", EXIT_FAILED)
        say(f"paperpilot: wrote a blind-review sheet of {written} answers to {out}",
            file=sys.stderr)
    return EXIT_OK if not report["errors"] else EXIT_FAILED


def write_review(report: dict, n: int, seed: int, out: Path) -> int:
    """Write the blind-review sheet of ``n`` answered questions (not abstained, not failed) at ``out``;
    how many it holds."""
    from training.eval_qa_measures import review_sheet

    answered = [r for r in report["rows"] if r["answer"] and not r["abstained"] and not r["error"]]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(review_sheet(answered, n, seed, title=report["collection"]), encoding="utf-8")
    return min(n, len(answered))
