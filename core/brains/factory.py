"""Build the brain the settings ask for.

- ``llm.provider: offline`` → the offline brain; with ``agent.router: auto|lora`` the local LoRA
  router classifies when its adapter is there (else the rule router, with a Notice).
- ``openai`` → the LLM brain for planning and synthesis, with the call plan of the README ("LLM calls
  per turn"): a local router (LoRA under ``auto``/``lora`` when its adapter is there, else the rule
  router; the LLM only under ``llm``), rule slot filling unless the question is ambiguous
  (``agent.slots: auto``), the rule critic first and the LLM critic only when the rules cannot decide
  (``agent.critic: auto``; ``local`` = the local critic model), multi-hop replanning by rules unless
  they would revise the plan (``agent.replan: auto``), and memory facts taken from the
  answer by rules (``agent.facts: rules``). Any of them can be given to the LLM with ``llm``.
- ``transformers`` → the same with a local chat model (``core.models.chat``).

Local models load lazily on first use (:class:`LazyPart`), so building a brain is cheap and never
imports torch. Nothing here touches the network: an unreachable endpoint shows at the first call.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from core.brains.base import BackendUnavailable, Brain
from core.brains.composite import CompositeBrain, LazyPart, _one_line
from core.config import Settings

Notes = list[tuple[str, str]]


def build_brain(settings: Settings, *, pace: float = 0.0, model: Any = None) -> Brain:
    """The configured brain. ``pace``: seconds between the sentences an offline answer streams;
    ``model``: a chat model to use instead of the configured provider's (benchmarks, tests)."""
    from core.brains.offline.brain import OfflineBrain

    offline = OfflineBrain(settings, pace=pace)
    provider = settings.llm.resolved_provider()
    agent = settings.agent
    notes: Notes = []
    parts: dict[str, Any] = {}
    if provider == "offline":
        if agent.router in ("auto", "lora"):
            router = local_router(settings, offline, notes, explicit=agent.router == "lora")
            if router is not None:
                parts["classify"] = router
        elif agent.router == "llm":
            notes.append(("info", "agent.router is llm but no LLM is configured; using the rule router"))
        if agent.critic == "local":
            critic = local_critic(settings, offline, notes)
            if critic is not None:
                parts["critique"] = critic
        return CompositeBrain(parts, offline, notices=notes) if parts or notes else offline

    from core.brains.cascade import RulesFirst
    from core.brains.llm.brain import LLMBrain

    llm = LLMBrain(model if model is not None else _chat_model(settings, provider), settings, fallback=offline)
    first = RulesFirst(offline, llm, settings)
    if agent.router in ("auto", "lora"):
        parts["classify"] = local_router(settings, offline, notes, explicit=agent.router == "lora") or offline
    elif agent.router == "rules":
        parts["classify"] = offline
    parts["fill_slots"] = {"auto": first, "rules": offline, "llm": llm}[agent.slots]
    parts["replan"] = first if agent.replan == "auto" else llm
    if agent.critic == "local":
        parts["critique"] = local_critic(settings, first, notes) or first
    else:
        parts["critique"] = {"auto": first, "rules": offline, "llm": llm}[agent.critic]
    parts["extract_facts"] = offline if agent.facts == "rules" else llm
    parts = {m: p for m, p in parts.items() if p is not llm}
    return CompositeBrain(parts, llm, notices=notes) if parts or notes else llm


def build_floor(settings: Settings, brain: Brain | None = None) -> Brain | None:
    """The brain whose own answer an LLM turn must reach (the turn floor, ``llm.turn_floor``): the
    set-up ``llm.provider: offline`` would build, its router and critic included. None when the
    configured brain uses no LLM or the floor is off. ``brain``: the turn's own brain, whose LoRA
    router the floor shares (one model in memory, loaded once, not two of the same adapter)."""
    if not settings.llm.turn_floor or settings.llm.resolved_provider() == "offline":
        return None
    floor = build_brain(settings.model_copy(update={"llm": settings.llm.model_copy(update={"provider": "offline"})}))
    mine, theirs = getattr(floor, "parts", {}).get("classify"), getattr(brain, "parts", {}).get("classify")
    if isinstance(mine, LazyPart) and isinstance(theirs, LazyPart) and mine.label == theirs.label:
        floor.parts["classify"] = theirs  # type: ignore[attr-defined]
    return floor


def _chat_model(settings: Settings, provider: str) -> Any:
    if provider == "openai":
        from core.brains.llm.chat import build_chat_model

        return build_chat_model(settings)
    if provider == "transformers":
        try:
            from core.models.chat import load_local_chat_model
        except ImportError:
            raise BackendUnavailable("the transformers provider needs local chat model support "
                                     "(core.models.chat) and llm.model set to a model directory or GGUF file") from None
        try:
            return load_local_chat_model(settings)
        except BackendUnavailable:
            raise
        except Exception as exc:  # noqa: BLE001 - ModelNotAvailable and friends: one line
            raise BackendUnavailable(f"local chat model {settings.llm.model!r} unavailable: {_one_line(exc)}") from None
    raise BackendUnavailable(f"unknown LLM provider {provider!r}")


def local_router(settings: Settings, fallback: Any, notes: Notes, *, explicit: bool) -> LazyPart | None:
    """The LoRA router as a lazily loaded part, or ``None`` (with a note) when it cannot exist."""
    level = "warning" if explicit else "info"
    using = f"using the {'rule' if getattr(fallback, 'name', '') == 'offline' else getattr(fallback, 'name', '')} router"
    try:
        module = importlib.import_module("core.models.router")
        load = module.load_router
    except (ImportError, AttributeError) as exc:
        notes.append((level, f"LoRA router not available ({_one_line(exc)}); {using}"))
        return None
    problem = _adapter_problem(module, settings)
    if problem:
        notes.append((level, f"LoRA router not available ({problem}); {using}"))
        return None
    return LazyPart("lora-router", lambda: load(settings), fallback, what="LoRA router")


def _adapter_problem(module: Any, settings: Settings) -> str | None:
    """A cheap check that the adapter folder is there (no torch import); ``None`` if it looks fine."""
    check = getattr(module, "read_label_map", None)
    shipped = getattr(module, "SHIPPED_ROUTER", None)
    configured = settings.agent.router_model
    if check is None or (configured is None and shipped is None):
        return None  # cannot tell cheaply; the lazy load will tell
    path = Path(configured).expanduser() if configured else Path(shipped)
    try:
        check(path)
    except Exception as exc:  # noqa: BLE001 - ModelNotAvailable, OSError, bad JSON
        return _one_line(exc)
    return None


def local_critic(settings: Settings, fallback: Any, notes: Notes) -> LazyPart | None:
    """The local (DPO) critic as a lazily loaded part, or ``None`` (with a note) if not installed."""
    try:
        module = importlib.import_module("core.models.critic")
        load = module.load_critic
    except (ImportError, AttributeError) as exc:
        notes.append(("warning", f"local critic not available ({_one_line(exc)}); "
                                 f"using the {getattr(fallback, 'name', 'fallback')} critic"))
        return None
    return LazyPart("local-critic", lambda: load(settings), fallback, what="local critic")
