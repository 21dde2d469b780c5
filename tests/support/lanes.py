"""Which tests belong to the full suite only: the ``slow`` marker, given by what a test does.

``pytest -m "not slow"`` (the fast lane) leaves out every test that spends seconds rather than
milliseconds; the full suite (``.ci/run``) runs them all. A test is slow when it

- asks for a fixture that starts the knowledge hub or indexes the bundled corpus with the real encoder
  (:data:`SLOW_FIXTURES`), or drives the app under Pilot through a snapshot (``snap_compare``);
- calls, itself or through the tests' own helpers (functions whose code is under ``tests/``, followed
  to any depth), something in :data:`SLOW_CALLS`: the app under Pilot (``run_test``), a real agent with its hub
  process (``open_agent``), the hub itself, or a child process (``subprocess``);
- passes the CLI a command that opens the agent or the hub (``cli(capsys, "ask", ...)``), builds a
  training set (a generator under ``training/data``) or needs the ``train`` extra (torch, scikit-learn);
- or carries ``@pytest.mark.slow`` by hand (training, real models, exhaustive checks).

The names are read from the compiled code (``co_names``, nested functions included), not guessed from
a test's name, so a new test that starts a hub lands in the full suite by itself.
"""

from __future__ import annotations

import importlib
import types
from collections.abc import Iterable
from pathlib import Path

TESTS = str(Path(__file__).resolve().parents[1])  # helpers are the functions whose code lives here

SLOW_FIXTURES = frozenset({
    "hub_db",  # the bundled corpus indexed with vectors; its users start hub processes on it
    "hub", "hub_home", "sqlite_hub_home", "hub_dsn",  # tests/hub: an indexed hub per backend
    "pg_cluster", "pg_dsn", "pg_hub",  # PostgreSQL clusters
    "snap_compare",  # the app rendered under Pilot and compared with an SVG
    "research_home",  # deep research on the indexed hub
})
SLOW_CALLS = frozenset({
    "run_test",  # the Textual app under Pilot
    "open_agent",  # a real agent: graph, stores and the bundled hub as a stdio process
    "Hub", "serve_http",  # the knowledge hub in-process (indexes the bundled corpus)
    "subprocess", "Popen", "fork",  # a child process (the CLI, a hub, a server, a writer to kill)
    "Ingestor",  # the ingest pipeline: parsing and the real encoder over whole documents
    "build_router",  # an ONNX graph built from the weights
    "EVAL_ROOT", "FULLPAPERS",  # whole evaluation corpora read to prove training data disjoint from them
})
# CLI commands that open the agent or the hub, passed to an in-process CLI helper as a string
SLOW_COMMANDS = frozenset({"ask", "ingest", "research", "serve"})
TRAINING_DATA = str(Path(__file__).resolve().parents[2] / "training" / "data")  # its generators build whole sets


def _code_names(code: types.CodeType) -> set[str]:
    """Names a function's code reads, nested functions included, and the CLI commands it passes."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
        elif isinstance(const, str) and const in SLOW_COMMANDS:
            names.add(const)
    return names


class SlowCalls:
    """Whether a function reaches a slow call, itself or through helpers defined under ``tests``."""

    def __init__(self) -> None:
        self._seen: dict[int, bool] = {}

    def reaches(self, fn: object, scope: dict) -> bool:
        code = getattr(fn, "__code__", None)
        if code is None:
            return False
        key = id(code)
        if key in self._seen:
            return self._seen[key]
        self._seen[key] = False  # a recursive helper does not loop
        names = _code_names(code)
        scope = {**scope, **_imported(names)}
        found = bool(names & (SLOW_CALLS | SLOW_COMMANDS)) or _generates_training_data(names, scope) or any(
            self.reaches(helper, getattr(helper, "__globals__", {})) for helper in _helpers(names, scope))
        self._seen[key] = found
        return found


def _imported(names: set[str]) -> dict:
    """What a function's own ``from tests.x import y`` can name (the module, imported as collection would)."""
    found: dict = {}
    for name in names:
        if name.startswith("tests.") and name.count(".") >= 2:
            try:
                found.update(vars(importlib.import_module(name)))
            except Exception:  # noqa: BLE001 - a module that cannot load here adds nothing
                pass
    return found


def _generates_training_data(names: set[str], scope: dict) -> bool:
    return any(getattr(getattr(scope.get(n), "__code__", None), "co_filename", "").startswith(TRAINING_DATA)
               for n in names)


def _ours(fn: object) -> bool:
    code = getattr(fn, "__code__", None)
    return code is not None and code.co_filename.startswith(TESTS)


def _helpers(names: Iterable[str], scope: dict) -> Iterable[object]:
    """The functions and classes (their methods) among ``names`` that the tests define themselves."""
    for name in names:
        obj = scope.get(name)
        if isinstance(obj, type):
            yield from (v for v in vars(obj).values() if isinstance(v, types.FunctionType) and _ours(v))
        elif isinstance(obj, types.FunctionType) and _ours(obj):
            yield obj


def is_slow(item, calls: SlowCalls) -> bool:
    if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    # tests/support/extras.needs("train"): torch, transformers or scikit-learn load (and often train)
    if any(str(m.kwargs.get("reason", "")).startswith("needs train") for m in item.iter_markers("skipif")):
        return True
    fn = getattr(item, "function", None)
    if fn is not None and calls.reaches(fn, getattr(fn, "__globals__", {})):
        return True
    # the test's fixtures that the tests define (a module's fixture opening an agent is as slow)
    info = getattr(item, "_fixtureinfo", None)
    for defs in (getattr(info, "name2fixturedefs", None) or {}).values():
        func = getattr(defs[-1], "func", None) if defs else None
        if _ours(func) and calls.reaches(func, func.__globals__):
            return True
    return False
