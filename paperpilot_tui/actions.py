"""The one action registry: every user action with its id, description, default keys and scope.

It drives the footer (the Bindings built here), the command palette (:mod:`paperpilot_tui.commands`),
F1 help (:mod:`paperpilot_tui.screens.help`) and user remaps: ``tui.keymap`` in the settings maps
an action id to keys, applied through Textual's keymap (Binding ids are the action ids).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

SCOPES = {
    "app": "Everywhere",
    "main": "Main screen",
    "input": "Question input",
    "answer": "A focused answer (alt+up from the question, a click, or tab)",
    "memory": "Memory browser",
    "sessions": "Sessions",
    "replay": "Replay",
    "topics": "Topics",
    "collections": "Collections",
    "lineage": "Lineage",
    "dialog": "Dialogs",
    "search": "Search in the chat",
    "clarify": "Deep research: clarifying questions",
    "outline": "Deep research: outline editor",
}


@dataclass(frozen=True)
class ActionSpec:
    """One action: ``id`` (stable, used in keymaps), what it does, default keys, where it applies."""

    id: str
    description: str
    keys: str
    where: str
    action: str
    show: bool = True
    priority: bool = False
    palette: bool = True  # offered in the command palette
    label: str = ""  # short footer label (default: description up to the first colon)


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("help", "Help: keys for this screen", "f1", "app", "help"),
    ActionSpec("palette", "Command palette", "ctrl+p", "app", "command_palette", show=False, palette=False),
    ActionSpec("open_sessions", "Sessions: list, resume, rename, delete", "f2", "app", "open_sessions"),
    ActionSpec("open_memory", "Memory browser: facts the agent remembers", "f3", "app", "open_memory",
               label="Memory"),
    ActionSpec("open_replay", "Replay a past trace", "f4", "app", "open_replay", label="Replay"),
    ActionSpec("new_session", "New session", "ctrl+n", "app", "new_session", show=False),
    # alt+t: sent as ESC t by every terminal and tmux, which Textual reads as alt+t with the printable
    # character "t": a priority binding, or the focused question box types a "t" instead
    ActionSpec("open_topics", "Topics: the collection's subjects and their documents; ask within one", "alt+t",
               "app", "open_topics", show=False, priority=True),
    # alt+c: ESC c from every terminal and tmux, a priority binding for the same reason as alt+t
    ActionSpec("open_collections", "Collections…: the hub's collections and documents; switch the one that answers",
               "alt+c", "app", "open_collections", show=False, priority=True),
    # alt+l: ESC l from every terminal and tmux, a priority binding for the same reason as alt+t
    ActionSpec("open_lineage", "Lineage…: the library's papers on the last question's topic by year, with cite arrows",
               "alt+l", "app", "open_lineage", show=False, priority=True),
    ActionSpec("cycle_theme", "Next theme (incl. high contrast)", "f9", "app", "cycle_theme", show=False),
    ActionSpec("high_contrast", "High-contrast theme", "f10", "app", "high_contrast", show=False),
    ActionSpec("quit", "Quit", "ctrl+q", "app", "quit", priority=True),
    # agent start-up (palette; offered by the status bar and the toast when the agent could not start)
    ActionSpec("retry_agent", "Retry: start the agent again (after the LLM or hub was unreachable)", "", "app",
               "retry_agent", show=False),
    ActionSpec("use_offline_brain", "Use the offline brain (when the LLM endpoint is down)", "", "app",
               "use_offline_brain", show=False),
    # main screen
    ActionSpec("cancel_turn", "Cancel the running turn", "escape", "main", "cancel_turn", priority=True,
               label="Cancel"),
    ActionSpec("focus_input", "Focus the question input", "ctrl+l", "main", "focus_input", show=False),
    ActionSpec("focus_sources", "Focus the sources list", "ctrl+o", "main", "focus_sources", label="Sources"),
    ActionSpec("focus_trace", "Focus the trace (enter expands a step)", "ctrl+t", "main", "focus_trace", show=False),
    # panes: F5..F8 reach the app in every terminal (checked in tmux 3.3); alt+1..4 only under the
    # kitty keyboard protocol: xterm, tmux and most terminals send ESC+digit, which Textual reads as
    # ¡™£¢ (macOS option characters). Priority, so the question input cannot take them.
    ActionSpec("pane_chat", "Show chat (narrow layout)", "f5,alt+1", "main", "pane('chat')", show=False, priority=True),
    ActionSpec("pane_graph", "Show graph (narrow layout)", "f6,alt+2", "main", "pane('graph')", show=False,
               priority=True),
    ActionSpec("pane_trace", "Show trace (narrow layout)", "f7,alt+3", "main", "pane('trace')", show=False,
               priority=True),
    ActionSpec("pane_memory", "Show memory (narrow layout)", "f8,alt+4", "main", "pane('memory')", show=False,
               priority=True),
    ActionSpec("replay_pause", "Replay: pause / resume", "space", "main", "replay_pause", show=False,
               palette=False, priority=True),
    # question input
    ActionSpec("send", "Send the question", "enter", "input", "send", palette=False,
               label="Send"),
    ActionSpec("newline", "New line in the question (ctrl+j in every terminal; shift+enter and alt+enter only "
               "where the terminal sends them: not in tmux, which sends them as enter)", "ctrl+j,shift+enter,alt+enter",
               "input", "newline",
               palette=False, show=False),
    ActionSpec("history_prev", "Previous question (on the first line)", "up", "input", "history(-1)",
               palette=False, show=False),
    ActionSpec("history_next", "Next question (on the last line)", "down", "input", "history(1)",
               palette=False, show=False),
    # memory browser
    ActionSpec("fact_add", "Add a fact", "a", "memory", "add"),
    ActionSpec("fact_edit", "Edit the selected fact", "e", "memory", "edit"),
    ActionSpec("fact_pin", "Pin / unpin the selected fact", "p", "memory", "pin"),
    ActionSpec("fact_delete", "Delete the selected fact", "d,delete", "memory", "delete"),
    ActionSpec("fact_search", "Search facts", "slash", "memory", "search"),
    # sessions
    ActionSpec("session_open", "Open / resume the selected session", "enter", "sessions", "open", palette=False),
    ActionSpec("session_new", "New session", "n", "sessions", "new"),
    ActionSpec("session_rename", "Rename the selected session", "r", "sessions", "rename"),
    ActionSpec("session_delete", "Delete the selected session", "d,delete", "sessions", "delete"),
    # replay
    ActionSpec("replay_play", "Play the selected trace", "enter", "replay", "play", palette=False),
    ActionSpec("replay_speed_up", "Replay faster", "plus,equals_sign", "main", "replay_speed(2.0)", show=False,
               priority=True),
    ActionSpec("replay_speed_down", "Replay slower", "minus", "main", "replay_speed(0.5)", show=False,
               priority=True),
    # topics
    ActionSpec("topic_ask", "Ask within the selected topic (the question box gets 'In the topic \"…\": ')",
               "enter", "topics", "ask_in_topic", palette=False),
    # collections
    ActionSpec("collection_documents", "Show the highlighted collection's documents (title, year, pages, chunks)",
               "enter", "collections", "documents", palette=False),
    ActionSpec("collection_use", "Use the highlighted collection for the next questions", "u", "collections", "use",
               label="Use"),
    ActionSpec("document_remove", "Remove the highlighted document from its collection (asks first)", "d,delete",
               "collections", "remove_document", label="Remove"),
    # lineage
    ActionSpec("lineage_sources", "Open the selected paper's sources (its passage and cite sentences)", "enter",
               "lineage", "open_paper", palette=False, label="Sources"),
    # any pushed screen
    ActionSpec("back", "Back / close", "escape", "dialog", "dismiss_screen"),
    # ---- chat features: copy, export, search (paperpilot_tui/widgets/chat*.py, transcript.py) ----
    # ctrl+g/ctrl+s/ctrl+f: not bound by the question input (a TextArea), sent by every terminal and
    # tmux. Not in the footer (it is full at 120 columns): the empty chat's hint, F1 and the palette list them.
    # Search is ctrl+f, not "/": the question input has focus by default and types "/" (keycheck refuses it).
    ActionSpec("copy_answer", "Copy the last answer (or the focused code block) to the clipboard", "ctrl+g",
               "main", "copy_answer", show=False),
    ActionSpec("export_session", "Export the session to Markdown, with each answer's sources", "ctrl+s",
               "main", "export_session", show=False),
    ActionSpec("search_chat", "Search the conversation (esc closes)", "ctrl+f", "main", "search_chat", show=False),
    # ---- conversations sidebar and per-answer actions (widgets/sidebar.py, answer_actions.py) ----
    # alt+b / alt+up: ESC b / ESC [1;3A from every terminal and tmux; priority, or the question box takes them
    ActionSpec("toggle_sidebar", "Conversations sidebar: show / hide (shown from 140 columns)", "alt+b", "main",
               "toggle_sidebar", show=False, priority=True),
    ActionSpec("focus_answers", "Answers: go to the latest answer (↑/↓ between answers, then c r e x)",
               "alt+up,ctrl+up", "main", "focus_answers", show=False, priority=True),
    ActionSpec("answer_copy", "Copy this answer with its sources (Markdown)", "c", "answer", "screen.answer_copy",
               label="Copy"),
    ActionSpec("answer_regenerate", "Regenerate: ask this answer's question again, as a new turn", "r", "answer",
               "screen.answer_regenerate", label="Regenerate"),
    ActionSpec("answer_edit", "Edit and resend: this answer's question back in the box", "e", "answer",
               "screen.answer_edit", label="Edit"),
    ActionSpec("answer_export", "Export this answer with its sources to Markdown", "x", "answer",
               "screen.answer_export", label="Export"),
    ActionSpec("answer_prev", "Previous answer", "up,k", "answer", "screen.answer_step(-1)", show=False,
               palette=False),
    ActionSpec("answer_next", "Next answer (after the last: the question box)", "down,j", "answer",
               "screen.answer_step(1)", show=False, palette=False),
    ActionSpec("search_next", "Next match (enter, or ↓)", "enter,down", "search", "next", palette=False,
               show=False),
    ActionSpec("search_prev", "Previous match (↑; shift+enter where the terminal sends it, not tmux)",
               "shift+enter,up", "search", "previous", palette=False, show=False),
    ActionSpec("search_close", "Close the search, back to the question", "escape", "search", "close",
               palette=False, show=False),
    # ---- deep research (paperpilot_tui/screens/research*.py) ----
    # ctrl+r: not bound by the question input (a TextArea), sent by every terminal and tmux. The mode
    # shows in the input's placeholder, the chat's title and the graph pane.
    ActionSpec("toggle_research", "Switch mode: Ask ↔ Deep research (a cited literature review, in steps)",
               "ctrl+r", "app", "toggle_research", show=False),
    ActionSpec("research_continue", "Deep research: continue (reopen the questions or the outline that wait for you)",
               "", "app", "research_continue", show=False),
    ActionSpec("research_export", "Deep research: export the review to Markdown, with its sources by point", "",
               "app", "research_export", show=False),
    ActionSpec("research_send_answers", "Send the answers", "ctrl+s", "clarify", "send", label="Send"),
    ActionSpec("research_skip", "Skip the questions (the outline comes from the topic alone)", "ctrl+o", "clarify",
               "skip", label="Skip"),
    ActionSpec("research_next_answer", "Next question (on the last one: send the answers)", "enter", "clarify",
               "next_answer", show=False, palette=False, priority=True),
    ActionSpec("outline_confirm", "Start the search with this outline", "ctrl+s", "outline", "confirm",
               label="Search"),
    ActionSpec("outline_add", "Add a knowledge point (in the list)", "a,insert", "outline", "add", label="Add"),
    ActionSpec("outline_remove", "Remove the highlighted point (in the list)", "d,delete", "outline", "remove",
               label="Remove"),
    ActionSpec("outline_up", "Move the highlighted point up (in the list)", "shift+up,k", "outline", "move(-1)",
               label="Up"),
    ActionSpec("outline_down", "Move the highlighted point down (in the list)", "shift+down,j", "outline", "move(1)",
               label="Down"),
    ActionSpec("outline_importance", "Importance of the highlighted point: high → medium → low (in the list)", "i",
               "outline", "importance", label="Importance"),
    ActionSpec("outline_json", "Structured ↔ raw JSON view of the outline", "ctrl+t", "outline", "toggle_json",
               label="JSON"),
)

BY_ID = {a.id: a for a in ACTIONS}


def bindings(*scopes: str) -> list[Binding]:
    """Textual Bindings (id = action id, so keymaps apply) for the actions in these scopes."""
    out = []
    for a in ACTIONS:
        if a.where in scopes and a.keys:  # palette-only actions have no keys
            out.append(Binding(a.keys, a.action, a.label or _short(a.description), show=a.show, priority=a.priority, id=a.id))
    return out


def in_scope(*scopes: str) -> list[ActionSpec]:
    return [a for a in ACTIONS if a.where in scopes]


def _short(description: str) -> str:
    """Footer label: the part before the colon, trimmed."""
    return description.split(":")[0].split(" (")[0]
