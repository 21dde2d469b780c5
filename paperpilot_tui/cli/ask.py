"""``paperpilot ask``: one question, answered headlessly (Rich output or one JSON object)."""

from __future__ import annotations

import argparse
import os
import json
import sys

from paperpilot_tui.cli.common import (EXIT_BACKEND, EXIT_FAILED, EXIT_OK, EXIT_USAGE, LLM_CHOICES, fail,
                                       load_settings_or_exit, run_async, say)

HELP = "ask one question and print the answer with its sources"
DESCRIPTION = """\
Ask one question without opening the app. The agent routes it (factual, comparative, multi_hop,
exploratory, follow_up), retrieves from the knowledge hub over MCP, critiques and retries, and
prints the answer with numbered sources. Use --session to continue a conversation (follow-ups
like "and what about its memory cost?" resolve against earlier turns). A session runs one turn at
a time: while another window runs one in it, ask waits ("waiting for session ...") or, with
agent.session_busy: fail, exits 1 with one line.

exit codes: 0 ok · 1 the turn failed · 2 usage or config error, an unknown --collection, or a question
over limits.question_chars · 3 LLM endpoint or MCP server unreachable
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ask", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("question", help="the question (quote it)")
    p.add_argument("--session", metavar="ID", help="continue (or start) this session")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of formatted text")
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help="settings file")
    p.add_argument("--llm", choices=LLM_CHOICES,
                   default=argparse.SUPPRESS, help="which brain answers")
    p.add_argument("--collection", metavar="NAME",
                   help="knowledge-hub collection to answer from (default: mcp.collection); an unknown one "
                        "exits 2 with the collections the hub has")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from core.limits import LimitExceeded, check_chars

    settings = load_settings_or_exit(args)  # applies --llm / --offline
    args.collection = args.collection or getattr(args, "app_collection", None)  # also before the command
    if args.collection:
        settings.mcp.collection = args.collection
    if not args.question.strip():
        return fail("the question is empty", EXIT_USAGE)
    try:
        check_chars(args.question, settings.limits.question_chars, "the question", "question_chars")
    except LimitExceeded as exc:
        return fail(str(exc), EXIT_USAGE)
    return run_async(_ask(settings, args))


def result_json(result, session: dict | None = None) -> dict:
    """The documented ``ask --json`` shape; ``session``: :func:`session_total` (None without traces)."""
    intent = result.intent
    critic = result.critic
    return {
        "question": result.question,
        "session_id": result.session_id,
        "trace_id": result.trace_id,
        "intent": None if intent is None else {
            "type": intent.type, "confidence": round(intent.confidence, 4), "entities": intent.entities,
            "dimensions": intent.dimensions, "constraints": intent.constraints,
            "reformulated_query": intent.reformulated_query, "router": intent.router,
        },
        "strategy": result.strategy,
        "final_answer": result.final_answer,
        "sources": [{"index": s.index, "chunk_id": s.chunk_id, "doc_id": s.doc_id, "title": s.title,
                     "source": s.source, "breadcrumb": s.breadcrumb, "page": s.page, "score": s.score,
                     "url": s.url, "metadata": s.meta.model_dump(exclude_none=True) if s.meta else None}
                    for s in result.sources],
        "critic": None if critic is None else {
            "passed": critic.passed, "score": critic.score, "completeness": critic.completeness,
            "faithfulness": critic.faithfulness, "feedback": critic.feedback, "forced": critic.forced,
        },
        "retry_count": result.retry_count,
        "llm_calls": result.llm_calls,
        "tokens": result.tokens,
        "cost": round(result.cost, 8),  # US dollars (llm.pricing)
        "llm_by_node": {node: u.model_dump() for node, u in result.llm_by_node.items()},
        "session_total": session,
        "timings_ms": result.timings_ms,
        "recalled_facts": result.recalled_facts,
        "notices": result.notices,
        "hub": result.hub,
        "warm": bool(os.environ.get("PAPERPILOT_WARM")),  # run by the warm ask server (hub start)
        "used_web_fallback": result.used_web_fallback,  # stage K: the answer rests on a web search
        "web_query": result.web_query,
        "web_result_count": result.web_result_count,
    }


async def _ask(settings, args: argparse.Namespace) -> int:
    from core.agent import open_agent
    from core.errors import BackendUnavailable
    from core.config import ConfigError
    from core.events import TurnFailed, TurnFinished
    from paperpilot_tui.cli.ask_render import Progress, is_waiting, render_result
    from paperpilot_tui.hub_collections import check

    progress = None if args.json else Progress()
    try:
        async with open_agent(settings) as agent:
            if args.collection and (unknown := await check(agent.hub, args.collection)):
                return _stop(progress, unknown, EXIT_USAGE)
            if progress:
                progress.start(agent.brain_name, agent.hub_status)
            last = None
            async for event in agent.run_turn(args.question, args.session):
                last = event
                if progress:
                    progress.update(event)
                elif is_waiting(event):  # --json: stdout stays one JSON object
                    say(f"{event.message}…", file=sys.stderr, flush=True)
            session = session_total(agent, last.result.session_id) if isinstance(last, TurnFinished) else None
    except BackendUnavailable as exc:
        return _stop(progress, str(exc), EXIT_BACKEND)
    except ConfigError as exc:
        return _stop(progress, f"config error: {exc}", EXIT_USAGE)
    if progress:
        progress.stop()
    if not isinstance(last, TurnFinished):
        if isinstance(last, TurnFailed):
            return fail(last.error, EXIT_BACKEND if last.category == "backend" else EXIT_FAILED)
        return fail("the turn produced no result", EXIT_FAILED)
    if args.json:
        say(json.dumps(result_json(last.result, session), ensure_ascii=False, indent=2))
    else:
        render_result(last.result, session)
    return EXIT_OK


def session_total(agent, session_id: str) -> dict | None:
    """LLM calls, tokens and cost of every recorded turn of the session, this one included
    (None when traces are off: nothing else remembers earlier turns' costs)."""
    if agent.traces is None or not agent.settings.tracing.enabled:
        return None
    total = {"turns": 0, "llm_calls": 0, "tokens": 0, "cost": 0.0}
    for summary in agent.traces.list(session_id, limit=None):
        detail = agent.traces.get(summary.trace_id)
        total["turns"] += 1
        total["llm_calls"] += summary.llm_calls
        total["tokens"] += summary.prompt_tokens + summary.completion_tokens
        total["cost"] += sum(c.get("cost", 0.0) for c in detail.llm) if detail else 0.0
    total["cost"] = round(total["cost"], 8)
    return total


def _stop(progress, message: str, code: int) -> int:
    if progress:
        progress.stop()
    return fail(message, code)
