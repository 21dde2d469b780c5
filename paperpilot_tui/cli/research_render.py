"""What ``paperpilot research`` prints: progress lines on stderr, the result on stdout (or a file).

Everything printed quotes stored or third-party text (topics, questions, outlines, reviews), so it all
goes through :func:`~paperpilot_tui.cli.common.say`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from core.events import (
    ClarificationAsked, Notice, OutlineEdited, OutlineProposed, PointSearched, ResearchStageChanged, ResearchStarted,
    ResearchWaiting, ReviewFinished, TurnFailed,
)
from core.tracing.describe import describe
from paperpilot_tui.cli.common import say


class Printer:
    """Follows a research run's events; :meth:`finish` writes the result once the run ended."""

    def __init__(self, args: Any) -> None:
        self.args = args
        self.session_id = ""
        self.trace_id = ""
        self.questions: list = []
        self.outline = None
        self.review = None
        self.waiting: ResearchWaiting | None = None
        self.failed: TurnFailed | None = None

    @property
    def ended(self) -> bool:
        return self.review is not None or self.waiting is not None

    def _err(self, line: str) -> None:
        say(line, file=sys.stderr, flush=True)

    def update(self, e: Any) -> None:
        self.trace_id = e.turn_id or self.trace_id
        match e:
            case ResearchStarted():
                self.session_id = e.session_id
                self._err(describe(e))
            case ResearchStageChanged() | PointSearched() | OutlineEdited():
                self._err(describe(e))
            case Notice() if e.level == "warning":
                self._err(f"warning: {e.message}")
            case ClarificationAsked():
                self.questions = e.questions
            case OutlineProposed():
                self.outline = e.outline
            case OutlineEdited():
                self.outline = e.outline
            case ResearchWaiting():
                self.waiting = e
            case ReviewFinished():
                self.review = e.review
                self._err(describe(e))
            case TurnFailed():
                self.failed = e

    def finish(self) -> None:
        if self.args.json:
            say(json.dumps(self._json(), ensure_ascii=False, indent=2))
            if self.review is not None and self.args.out:
                self._write_review()
            return
        if self.review is not None:
            if self.args.out:
                bib = self._write_review()
                self._err(f"wrote {self.args.out} and {bib.name} ({len(self.review.points)} points, "
                          f"{len(self.review.sources)} sources)"
                          f" · session {self.session_id} · trace {self.trace_id}")
            else:
                say(self.review.markdown, end="")
            return
        if self.waiting is not None and self.waiting.needs == "answers":
            for q in self.questions:
                say(f"{q.id}. [{q.purpose}] {q.question}")
            say(f'\nAnswer in a JSON file ({{"1": "...", "2": "..."}}; {{}} skips them), then run:\n'
                  f"  paperpilot research --session {self.session_id} --answers answers.json\n"
                  f"or skip the questions: paperpilot research --session {self.session_id} --no-clarify")
            self._err(f"session {self.session_id}: waiting for answers")
        elif self.waiting is not None and self.outline is not None:
            say(self.outline.model_dump_json(indent=2))
            self._err(f"session {self.session_id}: edit the outline, then run "
                      f"paperpilot research --session {self.session_id} --outline FILE")

    def _write_review(self) -> Path:
        """The review's Markdown at ``--out`` and its sources' BibTeX beside it (``review.bib``, 0600)."""
        from core.hub.library.cite import sources_bib
        from paperpilot_tui.transcript import write_export

        out = Path(self.args.out)
        out.write_text(self.review.markdown, encoding="utf-8")
        bib = out.with_suffix(".bib") if out.suffix.lower() != ".bib" else out.with_name(out.name + ".bib")
        return write_export(bib, sources_bib(self.review.sources)[0])

    def _json(self) -> dict:
        return {
            "session_id": self.session_id,
            "trace_id": self.trace_id,
            "waiting_for": self.waiting.needs if self.waiting else None,
            "questions": [q.model_dump() for q in self.questions] if self.waiting else [],
            "outline": self.outline.model_dump() if self.outline is not None else None,
            "review": self.review.model_dump(mode="json") if self.review is not None else None,
        }
