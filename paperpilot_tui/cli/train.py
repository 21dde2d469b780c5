"""``paperpilot train``: fine-tune the local router (LoRA) or critic (DPO) from the committed data."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from paperpilot_tui.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load_settings_or_exit, missing_train_extra

HELP = "fine-tune the local intent router (LoRA SFT) or answer critic (DPO)"
DESCRIPTION = """\
Train the small local models the agent can use instead of rules or an LLM.

  router  --base minilm    MiniLM sequence classifier + LoRA (fast CPU default, what ships)
          --base smollm2   SmolLM2-135M-Instruct (bundled GGUF) with TRL SFTTrainer + LoRA
          --base PATH      any local Hugging Face causal LM; 4-bit NF4 QLoRA on a CUDA GPU
  critic  --base smollm2|PATH   TRL DPOTrainer + LoRA on the committed critic preference pairs
  react   --base smollm2|PATH   the same DPO recipe on the ReAct critical-step pairs (D1 first
                                strategy, D2 continue or stop, D3 strategy switch)

Adapters go to $PAPERPILOT_HOME/models/<name> unless --out is given; point
agent.router_model / agent.critic_model in your settings at the folder to use it.

examples:
  paperpilot train router --base minilm --max-steps 20
  paperpilot train critic --base smollm2 --max-steps 5 --beta 0.1
  paperpilot train react --base smollm2 --max-steps 5
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help="settings file")
    what = p.add_subparsers(dest="what", metavar="MODEL", required=True)

    r = what.add_parser("router", help="intent router (LoRA)")
    r.add_argument("--base", default="minilm", help="minilm | smollm2 | PATH (default: minilm)")
    r.add_argument("--max-steps", type=int, default=None, metavar="N", help="stop after N optimizer steps")
    r.add_argument("--out", type=Path, default=None, metavar="DIR", help="adapter output folder")
    r.add_argument("--seed", type=int, default=13, metavar="N")
    r.add_argument("--data", type=Path, default=None, metavar="FILE", help="training JSONL (default: committed split)")
    r.add_argument("--init", type=Path, default=None, metavar="DIR",
                   help="minilm: continue training from this adapter (e.g. the shipped one)")
    r.add_argument("--json", action="store_true", help="print the summary as JSON")
    r.set_defaults(run=run)

    for name, help_ in (("critic", "answer critic (DPO)"), ("react", "ReAct critical-step policy (DPO)")):
        c = what.add_parser(name, help=help_)
        c.add_argument("--base", default="smollm2", help="smollm2 | PATH (default: smollm2)")
        c.add_argument("--max-steps", type=int, default=None, metavar="N", help="stop after N optimizer steps")
        c.add_argument("--beta", type=float, default=0.1, metavar="B", help="DPO beta (KL strength, default 0.1)")
        c.add_argument("--out", type=Path, default=None, metavar="DIR", help="adapter output folder")
        c.add_argument("--seed", type=int, default=17, metavar="N")
        c.add_argument("--data", type=Path, default=None, metavar="FILE", help="preference-pair JSONL")
        c.add_argument("--json", action="store_true", help="print the summary as JSON")
        c.set_defaults(run=run)


def _log(message: str) -> None:
    """Progress goes to stderr so stdout stays one JSON object under --json."""
    print(message, file=sys.stderr, flush=True)


def _default_out(settings, name: str) -> Path:
    return settings.paths.home_dir() / "models" / name


def run(args: argparse.Namespace) -> int:
    settings = load_settings_or_exit(args)
    from core.models.manager import ModelNotAvailable

    slug = "minilm" if args.base == "minilm" else "smollm2" if args.base == "smollm2" else Path(args.base).name
    out = args.out or _default_out(settings, f"{args.what}-{slug}")
    if args.max_steps is not None and args.max_steps < 1:
        return fail("--max-steps must be at least 1", EXIT_USAGE)
    try:
        if args.what == "router" and args.base == "minilm":
            from training.router_minilm import RouterTrainConfig, train_router_minilm

            cfg = RouterTrainConfig(out=out, seed=args.seed, max_steps=args.max_steps, init=args.init)
            if args.data:
                cfg.data = args.data
            summary = train_router_minilm(cfg, log=_log)
        elif args.what == "router":
            from training.router_sft import SFTRouterConfig, train_router_sft

            cfg = SFTRouterConfig(base=args.base, out=out, seed=args.seed, max_steps=args.max_steps)
            if args.data:
                cfg.data = args.data
            summary = train_router_sft(cfg, log=_log)
        else:
            from training.critic_dpo import CriticTrainConfig, train_critic_dpo

            cfg = CriticTrainConfig(base=args.base, out=out, seed=args.seed, max_steps=args.max_steps, beta=args.beta)
            if args.what == "react":
                from training.data.generate_react_steps import TRAIN_FILE as REACT_TRAIN

                cfg.data = REACT_TRAIN
            if args.data:
                cfg.data = args.data
            summary = train_critic_dpo(cfg, log=_log)
    except ModelNotAvailable as exc:
        return fail(str(exc), EXIT_FAILED)
    except ImportError as exc:
        line = missing_train_extra(exc, "training")
        if line is None:
            raise
        return fail(line, EXIT_FAILED)
    except (OSError, ValueError) as exc:
        return fail(f"training failed: {exc}", EXIT_FAILED)
    if args.json:
        print(json.dumps(summary, indent=2, default=str))
    else:
        print(f"adapter saved to {summary['out']}")
    return EXIT_OK
