"""Rich rendering for ``paperpilot ask``: live progress on stderr, the answer on stdout."""

from __future__ import annotations

from rich.console import Console
from rich.markdown import Markdown
from rich.panel import Panel
from rich.status import Status
from rich.table import Table

from paperpilot_tui.cli.common import clean


def _markup_safe(text: str) -> str:
    """Stored or third-party text inside Rich markup: no terminal controls, no markup of its own."""
    from rich.markup import escape

    return escape(clean(text))


class Progress:
    """A one-line spinner on stderr naming the node the agent is in."""

    def __init__(self) -> None:
        self.console = Console(stderr=True)
        self.status: Status | None = None

    def start(self, brain: str, hub: str) -> None:
        if self.console.is_terminal:
            self.status = self.console.status(f"[dim]{_markup_safe(f'{brain} · {hub}')}[/] starting…")
            self.status.start()

    def update(self, event) -> None:
        from core.events import NodeStarted, RetrievalStarted
        from core.tracing.describe import describe

        if self.status is not None and isinstance(event, (NodeStarted, RetrievalStarted)):
            self.status.update(f"[bold]{_markup_safe(clean(describe(event), multiline=False))}[/]")
        if is_waiting(event):  # another process runs a turn in this session
            self.console.print(f"[yellow]{_markup_safe(event.message)}…[/]")
            if self.status is not None:
                self.status.update("[bold]waiting for the session…[/]")

    def stop(self) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None


def is_waiting(event) -> bool:
    """The turn waits for its session, which another process (the app, another ``ask``) is using."""
    from core.events import Notice

    return isinstance(event, Notice) and event.source == "session"


def render_result(result, session: dict | None = None) -> None:
    from core.budget import dollars
    from core.tracing.describe import forced_pass

    out = Console()
    intent = result.intent
    head = f"[bold]{result.strategy}[/]"
    if intent is not None:
        head += f" · intent {intent.type} ({intent.confidence:.2f}, {intent.router})"
    if result.critic is not None:
        c = result.critic
        head += f" · critic {c.score:.1f}/10{' (forced)' if c.forced else ''}"
    if result.retry_count:
        head += f" · {result.retry_count} retr{'y' if result.retry_count == 1 else 'ies'}"
    out.print(Panel(Markdown(clean(result.final_answer) or "_(no answer)_"), title=head, title_align="left"))
    if result.sources:
        table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        table.add_column("#", justify="right")
        table.add_column("source")
        table.add_column("where", style="dim")
        for s in result.sources:
            where = s.breadcrumb or ""
            if s.page is not None:
                where = f"{where} · p.{s.page}" if where else f"p.{s.page}"
            name = clean(s.title or s.source) + (f" ({clean(s.url)})" if s.url else "")
            table.add_row(f"[{s.index}]", _markup_safe(name), _markup_safe(where))
        out.print(table)
    else:
        out.print("[dim]No sources cited.[/]")
    if result.used_web_fallback:
        out.print(f"[cyan]web fallback:[/] the knowledge base could not support an answer; this one rests on "
                  f"{result.web_result_count} result(s) for “{_markup_safe(result.web_query)}”")
    if forced := forced_pass(result):
        out.print(f"[yellow]⚠ {_markup_safe(forced)}[/]")
    for note in result.notices:
        out.print(f"[yellow]note:[/] {_markup_safe(note)}")
    timings = ", ".join(f"{k} {v:.0f}ms" for k, v in result.timings_ms.items() if k != "total")
    tokens = result.tokens
    usage = (f"{result.llm_calls} LLM call(s), {tokens.get('total', 0)} tokens ({tokens.get('prompt', 0)} in, "
             f"{tokens.get('completion', 0)} out), {dollars(result.cost)}")
    if session and session["turns"] > 1:
        usage += (f" · session: {session['turns']} turns, {session['llm_calls']} LLM call(s), "
                  f"{session['tokens']} tokens, {dollars(session['cost'])}")
    out.print(f"[dim]{timings} · total {result.timings_ms.get('total', 0):.0f}ms · {usage} · trace {result.trace_id} · "
              f"session {_markup_safe(result.session_id)}{f' · {_markup_safe(result.hub)}' if result.hub else ''}[/]")
