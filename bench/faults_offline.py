"""Fault experiment: ``--offline`` opens nothing but loopback.

Real ``paperpilot --offline`` commands (``ask`` with memory on, which starts its stdio hub child,
and ``research --no-clarify``) run under :mod:`tests.support.netwatch`: strace records every
``connect``/``sendto``/``sendmsg`` of the command and every process it starts, in an empty network
namespace where that is allowed. Any non-loopback address, any packet to port 53 and any
connection to a resolver socket counts. The environment is the user's minus
``ORT_DISABLE_TELEMETRY``, so the project itself must turn ONNX Runtime's telemetry off.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from bench.faults_common import CLI, ROOT, env_for, home_with_hub, row, settings_file, tally

BOUND_S = 600
QUESTIONS = ("What rank does LoRA use by default?", "Compare LoRA and QLoRA in memory use",
             "How does DPO differ from RLHF?")


def offline_network(indexed: Path, asks: int = 3) -> dict:
    from tests.support import netwatch

    why = netwatch.available()
    if why:
        return row("--offline network", notes=f"not run: {why}")
    home = home_with_hub(indexed, "faults-offline-")
    config = settings_file(home, memory=True)
    env = {k: v for k, v in env_for(home).items() if k != "ORT_DISABLE_TELEMETRY"}
    commands = [["ask", q] for q in QUESTIONS[:asks]] + [["research", "--no-clarify", "parameter-efficient fine-tuning"]]
    outcomes, found = [], []
    try:
        for argv in commands:
            watched = netwatch.watch([*CLI, "--offline", "--config", str(config), *argv], env=env, cwd=ROOT,
                                     timeout=BOUND_S)
            outcomes.append({"code": watched.returncode, "stdout": watched.stdout, "stderr": watched.stderr,
                             "hang": False})
            found += watched.foreign
    finally:
        shutil.rmtree(home, ignore_errors=True)
    c = tally(outcomes)
    notes = (f"{len(found)} non-loopback lookup(s) or connection(s) in {len(commands)} commands "
             f"({len(commands) - 1} ask, 1 research), hub children included"
             + (f"; e.g. {found[0][:160]}" if found else ""))
    if os.geteuid() != 0:
        notes += "; traced without a private network namespace (not root)"
    return row("--offline network", tries=len(outcomes), survived=c["survived"], clear_error=c["clear_error"],
               traceback=c["traceback"], hang=c["hang"], lost="n/a", notes=notes, foreign=len(found),
               failed=len(outcomes) - c["answered"])
