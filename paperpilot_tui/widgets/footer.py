"""The footer, fitted to its width: a key that would run under the command palette's key (docked on
the right) or past the edge is hidden whole instead of shown cut ("f3 ▏").

Textual's footer lays every shown binding out left to right and docks the palette key over the
right end, so at 80 columns the last keys were cut in the middle of their label. Keys come in the
registry's order (:mod:`paperpilot_tui.actions`: send, cancel, sources, quit, help, sessions, …),
so the ones dropped first are the ones that matter least; F1 and the palette still list them all.
"""

from __future__ import annotations

from textual.widgets import Footer
from textual.widgets._footer import FooterKey

PALETTE = "-command-palette"


class FittedFooter(Footer):
    """A :class:`~textual.widgets.Footer` that hides, after each layout, the keys that do not fit."""

    def on_mount(self) -> None:  # Textual also runs Footer.on_mount (handlers run up the MRO)
        self.watch(self, "compact", self._refit, init=False)

    async def recompose(self) -> None:
        await super().recompose()
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self._refit()

    def _refit(self, *_: object) -> None:
        """Show every key again, then fit once the layout has placed them."""
        for key in self.query(FooterKey):
            key.display = True
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        if not self.is_attached:
            return
        right = self.region.right
        palette = [k for k in self.query(FooterKey) if k.has_class(PALETTE)]
        limit = min([right, *(k.region.x for k in palette if k.display)])
        for key in self.query(FooterKey):
            if key.has_class(PALETTE) or not key.display:
                continue
            if key.region.right > limit:
                key.display = False

    def hidden_keys(self) -> list[str]:
        """The descriptions of the keys hidden for want of room (for tests and F1)."""
        return [k.description for k in self.query(FooterKey) if not k.display]
