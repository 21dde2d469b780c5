"""Which user remaps (``tui.keymap``) can fire: keys terminals really send, not shadowed.

A remap is refused (the registry default stays, and the app shows one warning) when its action id
is unknown, when none of its keys is one every terminal sends (``ctrl+m`` *is* enter, ``ctrl+1``
is not sent without the kitty keyboard protocol), or when a key is taken before it can reach the
action: Textual's own clash report for the bindings of one node, and the widgets in front of it
in the focus chain (the question input is a TextArea, which binds f6, f7, ctrl+a…, and types
every printable key; the browsers' tables bind enter and the arrows).
"""

from __future__ import annotations

from textual.binding import BindingsMap

from paperpilot_tui.actions import ACTIONS, BY_ID, bindings

#: keys a terminal never sends as such: what it sends instead
NEVER_SENT = {"ctrl+m": "enter", "ctrl+i": "tab", "ctrl+left_square_bracket": "escape", "ctrl+h": "backspace"}
#: keys sent only with the kitty keyboard protocol (and swallowed by tmux)
KITTY_ONLY = {"ctrl+enter", "shift+enter", "alt+enter", "ctrl+tab", "ctrl+shift+tab",
              *(f"ctrl+{d}" for d in "0123456789")}
NAMED = {"escape", "tab", "enter", "up", "down", "left", "right", "home", "end", "pageup", "pagedown",
         "insert", "delete", "backspace", *(f"f{n}" for n in range(1, 25))}

#: the nodes a key passes through, nearest first, with the scopes bound on each
CHAINS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("textarea", "input"), ("main",), ("app",)),
    (("answer",), ("main",), ("app",)),  # a focused answer (its c/r/e/x and ↑/↓)
    (("datatable",), ("memory", "dialog"), ("app",)),
    (("datatable",), ("sessions", "dialog"), ("app",)),
    (("datatable",), ("replay", "dialog"), ("app",)),
    (("datatable",), ("topics", "dialog"), ("app",)),
    (("datatable",), ("collections", "dialog"), ("app",)),
)


def _widget_keys(scope: str) -> set[str]:
    if scope == "textarea":
        from textual.widgets import TextArea as widget
    elif scope == "datatable":
        from textual.widgets import DataTable as widget
    else:
        return set()
    return {k.strip() for b in widget.BINDINGS for k in b.key.split(",")}  # type: ignore[union-attr]


def _printable(key: str) -> bool:
    return "+" not in key and key not in NAMED


def check_keymap(keymap: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """Split a (normalised) user keymap into the remaps that can fire and one line per refused one."""
    problems: list[str] = []
    good: dict[str, str] = {}
    for action_id, value in keymap.items():
        if action_id not in BY_ID:
            problems.append(f"{action_id}: unknown action id (F1 lists the ids)")
            continue
        keys = [k.strip() for k in value.split(",") if k.strip()]
        why = [f"{k} is {NEVER_SENT[k]}" for k in keys if k in NEVER_SENT]
        if not why and keys and all(k in KITTY_ONLY for k in keys):
            why.append(f"{value} is sent only by terminals with the kitty keyboard protocol (add a key every terminal sends)")
        if not keys:
            why.append("no key given")
        why += _shadowed(action_id, keys, keymap)
        if why:
            problems.append(f"{action_id}: {'; '.join(why)}")
        else:
            good[action_id] = ",".join(keys)
    return good, problems


def _effective(scopes: tuple[str, ...], keymap: dict[str, str], but: str) -> dict[str, str]:
    """key → action id for the registry actions bound on one node (with the user's remaps)."""
    return {k.strip(): a.id for a in ACTIONS if a.where in scopes and a.id != but
            for k in keymap.get(a.id, a.keys).split(",")}


def _shadowed(action_id: str, keys: list[str], keymap: dict[str, str]) -> list[str]:
    """Why ``keys`` would not reach ``action_id``: a clash on its own node (Textual's clash report,
    and the other actions there), or a binding, or typing, on a node in front of it."""
    spec = BY_ID[action_id]
    out: list[str] = []
    for chain in CHAINS:
        at = next((i for i, node in enumerate(chain) if spec.where in node), None)
        if at is None:
            continue
        own = BindingsMap(bindings(*chain[at]))
        clashed = own.apply_keymap({action_id: ",".join(keys)}).clashed_bindings
        out += [f"{b.key} already does {b.id or b.action}" for b in clashed if b.id != action_id]
        mine = _effective(chain[at], keymap, action_id)
        out += [f"{k} already does {mine[k]}" for k in keys if k in mine]
        if spec.priority:
            continue
        for node in chain[:at]:
            theirs = _effective(node, keymap, action_id)
            widget = _widget_keys(node[0])
            for key in keys:
                if key in theirs:
                    out.append(f"{key} is taken by {theirs[key]}")
                elif key in widget or (node[0] == "textarea" and _printable(key)):
                    out.append(f"{key} is taken by the {'question input' if node[0] == 'textarea' else 'table'}")
    return sorted(set(out))
