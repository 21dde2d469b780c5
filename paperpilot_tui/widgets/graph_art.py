"""Draw the main graph as boxes and arrows on a character grid, each node styled by its state.

Pure functions over plain data (no widgets): :func:`render_main` returns a Rich ``Text``.
Layout follows design §5.3: load_memory → route → slot_fill → four strategies → critic →
retry_refine (back to route) or save_memory → format_output.
"""

from __future__ import annotations

from rich.text import Text

from core.types import STRATEGIES, STRATEGY_PARADIGM, STRATEGY_STEPS

WIDTH, HEIGHT = 54, 15

# node: (row, col, width); boxes are 3 rows high with the label centred on the middle row.
BOXES: dict[str, tuple[int, int, int]] = {
    "load_memory": (0, 0, 15), "route": (0, 17, 9), "slot_fill": (0, 28, 13),
    "simple": (4, 0, 8), "multi_hop": (4, 9, 11), "comparative": (4, 21, 13), "exploratory": (4, 35, 13),
    "critic": (8, 22, 10), "retry_refine": (8, 36, 16),
    "save_memory": (12, 20, 15), "format_output": (12, 37, 17),
}

STYLES = {
    "active": "bold reverse {accent}",
    "done": "{success}",
    "failed": "bold {error}",
    "idle": "{muted}",
    "skipped": "{muted} dim",
    "edge": "{muted}",
}


def _center(node: str) -> int:
    _, c, w = BOXES[node]
    return c + w // 2


def _blank() -> list[list[str]]:
    return [[" "] * WIDTH for _ in range(HEIGHT)]


def _put(grid: list[list[str]], r: int, c: int, s: str) -> None:
    for i, ch in enumerate(s):
        if 0 <= c + i < WIDTH:
            grid[r][c + i] = ch


def _box(grid: list[list[str]], node: str) -> None:
    r, c, w = BOXES[node]
    _put(grid, r, c, "┌" + "─" * (w - 2) + "┐")
    _put(grid, r + 1, c, "│" + node.center(w - 2) + "│")
    _put(grid, r + 2, c, "└" + "─" * (w - 2) + "┘")


def _hbus(grid: list[list[str]], r: int, cols: list[int], up: str, down: str, ends: tuple[str, str]) -> None:
    lo, hi = min(cols), max(cols)
    _put(grid, r, lo, "─" * (hi - lo + 1))
    grid[r][lo], grid[r][hi] = ends


def skeleton() -> list[list[str]]:
    """The static drawing: boxes, arrows and joints."""
    g = _blank()
    for node in BOXES:
        _box(g, node)
    _put(g, 1, 15, "─▶")
    _put(g, 1, 26, "─▶")
    # slot_fill fans out to the four strategies
    centers = [_center(s) for s in STRATEGIES]
    sf = _center("slot_fill")
    g[2][sf] = "┬"
    _hbus(g, 3, centers + [sf], "", "", ("┌", "┐"))
    for c in centers:
        g[3][c] = "┬" if c not in (min(centers), max(centers)) else g[3][c]
        g[4][c] = "▼"
    g[3][sf] = "┴" if sf not in centers else "┼"
    # the strategies join into critic
    cr = _center("critic")
    _hbus(g, 7, centers, "", "", ("└", "┘"))
    for c in centers:
        g[6][c] = "┬"
        if c not in (min(centers), max(centers)):
            g[7][c] = "┴"
    g[7][cr] = "┼" if cr in centers else "┬"
    g[8][cr] = "▼"
    # critic → retry_refine (fail) and → save_memory (pass)
    _put(g, 9, 32, "───▶")
    _put(g, 8, 32, "fail")
    _put(g, 11, 37, "↺ to route")
    g[10][cr] = "┬"
    _put(g, 11, cr, "│ pass")
    sm = _center("save_memory")
    g[12][sm] = "▼" if sm == cr else g[12][sm]
    _put(g, 13, 35, "─▶")
    return g


_SKELETON = skeleton()


def render_main(status: dict[str, str], colors: dict[str, str]) -> Text:
    """The main graph; ``status`` maps node → active | done | failed | idle | skipped."""
    styles = {k: v.format(**colors) for k, v in STYLES.items()}
    cell_style = [[styles["edge"]] * WIDTH for _ in range(HEIGHT)]
    for node, (r, c, w) in BOXES.items():
        st = styles[status.get(node, "idle")]
        for rr in range(r, r + 3):
            for cc in range(c, c + w):
                cell_style[rr][cc] = st
    text = Text(no_wrap=True, overflow="crop")
    for r in range(HEIGHT):
        row = "".join(_SKELETON[r]).rstrip()
        start = 0
        while start < len(row):
            end = start
            while end < len(row) and cell_style[r][end] == cell_style[r][start]:
                end += 1
            text.append(row[start:end], style=cell_style[r][start])
            start = end
        text.append("\n")
    return text


#: the main graph's nodes in order, as rows of the stacked view (strategies share a row)
STACKED_ROWS: tuple[tuple[str, ...], ...] = (("load_memory", "route", "slot_fill"), STRATEGIES,
                                               ("critic", "retry_refine"), ("save_memory", "format_output"))
MARKS = {"active": "▶", "done": "✓", "failed": "✗", "skipped": "·", "idle": " "}


def render_stacked(status: dict[str, str], colors: dict[str, str]) -> Text:
    """The main graph where the box drawing does not fit (under :data:`WIDTH` columns): one row
    per stage of the graph, each node marked and styled by its state; rows wrap at the pane's width
    instead of being cut off."""
    styles = {k: v.format(**colors) for k, v in STYLES.items()}
    text = Text()
    for n, row in enumerate(STACKED_ROWS):
        text.append("↓ " if n else "  ", style=styles["edge"])
        for i, node in enumerate(row):
            state = status.get(node, "idle")
            if i:
                text.append(" │ " if row is STRATEGIES else (" ↺ " if node == "retry_refine" else " → "),
                            style=styles["edge"])
            text.append(f"{MARKS[state]}{node}", style=styles[state])
        text.append("\n")
    return text


def step_label(strategy: str, step: str) -> str:
    """How a strategy step is drawn: comparative's retrievals run in parallel (∥)."""
    return f"{step} ∥" if strategy == "comparative" and step == "retrieve" else step


def render_subgraph(strategy: str, active: str | None, done: set[str], counters: str,
                    colors: dict[str, str]) -> Text:
    """One line: the running strategy's steps (``core.types.STRATEGY_STEPS``), the active one
    highlighted, then its counters."""
    styles = {k: v.format(**colors) for k, v in STYLES.items()}
    text = Text(no_wrap=True, overflow="ellipsis")
    if strategy not in STRATEGY_STEPS:
        text.append("strategy subgraph: waiting for the router", style=styles["idle"])
        return text
    text.append(f"{STRATEGY_PARADIGM[strategy]}: ", style="bold")
    for i, s in enumerate(STRATEGY_STEPS[strategy]):
        if i:
            text.append("→", style=styles["edge"])
        st = "active" if s == active else "done" if s in done else "idle"
        text.append(f"[{step_label(strategy, s)}]", style=styles[st])
    if strategy in ("multi_hop", "exploratory"):
        text.append(" ↺", style=styles["edge"])
    if counters:
        text.append(f"  {counters}")
    return text


RESEARCH_BOX = 17  # width of a research stage's box


def render_research(stages: tuple[str, ...], status: dict[str, str], notes: dict[str, str],
                    colors: dict[str, str]) -> Text:
    """The deep-research stages top to bottom (initial → … → review), one box each with what it
    did beside it; ``status`` maps stage → active | waiting | done | failed | idle."""
    styles = {k: v.format(**colors) for k, v in STYLES.items()}
    styles["waiting"] = "bold reverse {warning}".format(**colors)
    inner = RESEARCH_BOX - 2
    text = Text(no_wrap=True, overflow="crop")
    for n, stage in enumerate(stages):
        st = styles[status.get(stage, "idle")]
        top = "┌" + "─" * (inner // 2) + ("▼" if n else "─") + "─" * (inner - inner // 2 - 1) + "┐"
        text.append(top + "\n", style=st)
        text.append("│" + stage.center(inner) + "│", style=st)
        if note := notes.get(stage):
            text.append("  " + note, style="" if status.get(stage) in ("active", "waiting") else styles["idle"])
        text.append("\n")
        text.append("└" + "─" * inner + "┘\n", style=st)
    return text
