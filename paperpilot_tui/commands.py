"""Command palette provider (ctrl+p): every registry action available on the current screen."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from paperpilot_tui.actions import ActionSpec, in_scope


class ActionsProvider(Provider):
    """Offers the registry's actions for the active screen, with their (possibly remapped) keys."""

    def _actions(self) -> list[tuple[ActionSpec, object]]:
        screen = self.screen
        scopes = getattr(screen, "HELP_SCOPES", ("app",))
        out = []
        for a in in_scope(*scopes):
            if a.palette:
                out.append((a, self.app if a.where == "app" else screen))
        return out

    def _label(self, a: ActionSpec) -> str:
        keys = self.app.keys_for(a.id)
        return f"{a.description}  ({keys})" if keys else a.description

    async def _run(self, action: str, target: object) -> None:
        await self.app.run_action(action, target)

    async def discover(self) -> Hits:
        for a, target in self._actions():
            yield DiscoveryHit(self._label(a), partial(self._run, a.action, target), help=f"action id: {a.id}")

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for a, target in self._actions():
            label = self._label(a)
            score = max(matcher.match(label), matcher.match(a.id))
            if score > 0:
                yield Hit(score, matcher.highlight(label), partial(self._run, a.action, target),
                          help=f"action id: {a.id}")
