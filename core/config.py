"""Settings: the models' defaults, an optional user file, the environment — validated once.

Every default lives in the models below and nowhere else; ``config/settings.yaml`` documents them
and a test keeps it equal to :func:`defaults`. Layers, later wins: the defaults → the user file
(``--config FILE`` or the platform config dir) → environment (``OPENAI_API_KEY``,
``OPENAI_BASE_URL``, ``PAPERPILOT_LLM_MODEL``, ``PAPERPILOT_LLM_PROVIDER``, ``PAPERPILOT_HUB_TOKEN``). String values may use
``${VAR}`` or ``${VAR:-fallback}``. A bad file raises :class:`ConfigError` with one line per problem
(every invalid key, not only the first), each naming the file, the line and the key.

A settings file is untrusted input too: it is refused, in one line, when its YAML nests deeper than
:data:`MAX_YAML_DEPTH` (counted on the parser's event stream, which is iterative, before anything
recursive composes it) or when aliases expand it past :data:`MAX_YAML_NODES`.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

from core import paths


class ConfigError(Exception):
    """Settings problems the user can fix: ``lines``, one readable line each (``str()`` joins them)."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)
        super().__init__("\n".join(lines))


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Price(_Section):
    input_per_mtok: float = Field(0.0, ge=0)
    output_per_mtok: float = Field(0.0, ge=0)


DEFAULT_PRICES = {  # OpenAI list prices, USD per million input / output tokens
    "gpt-4o-mini": (0.15, 0.60), "gpt-4o": (2.50, 10.00), "gpt-4.1": (2.00, 8.00), "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40), "o4-mini": (1.10, 4.40),
}


class LLMSettings(_Section):
    provider: Literal["auto", "offline", "openai", "transformers"] = "auto"
    model: str = "gpt-4o-mini"
    base_url: str | None = None
    api_key: SecretStr | None = None
    temperature: float = Field(0.0, ge=0, le=2)
    timeout: float = Field(30.0, gt=0)
    retries: int = Field(2, ge=0, le=10)
    max_tokens: int = Field(1024, gt=0)
    # the model's context window in tokens (a local server's n_ctx / num_ctx): when set, the evidence
    # in a prompt is cut, lowest-ranked chunks first, so prompt + max_tokens fit, and the trace says so
    context_tokens: int | None = Field(None, gt=0)
    # the turn floor (core.brains.llm.floor): the offline brain answers each question first, and an LLM
    # turn whose final answer falls below that offline answer delivers the offline one (the trace says so)
    turn_floor: bool = True
    # US dollars per million tokens, by model name (a dated name like gpt-4o-mini-2024-07-18 matches its
    # longest listed prefix); a model not listed (a local server's) costs 0. A user file adds entries.
    pricing: dict[str, Price] = Field(default_factory=lambda: {name: Price(input_per_mtok=i, output_per_mtok=o)
                                                               for name, (i, o) in DEFAULT_PRICES.items()})

    def resolved_provider(self) -> str:
        return self.choice()[0]

    def choice(self) -> tuple[str, str]:
        """(provider, why). ``auto`` means openai only when an API key is configured: an
        ``OPENAI_BASE_URL`` exported for some other tool must not switch the brain on its own
        (a keyless local server is chosen with ``provider: openai`` or ``--llm openai``)."""
        if self.provider != "auto":
            return self.provider, "chosen"
        if self.api_key and self.api_key.get_secret_value():
            return "openai", "auto: key set"
        if self.base_url:
            return "offline", "auto: URL, no key"
        return "offline", "auto: no key"


class MCPConnection(_Section):
    transport: Literal["stdio", "streamable_http", "sse"] = "stdio"
    command: str | None = None  # null = this Python interpreter
    args: list[str] = Field(default_factory=list)
    cwd: str | None = None
    env: dict[str, str] = Field(default_factory=dict)
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check_target(self) -> MCPConnection:
        if self.transport != "stdio" and not self.url:
            raise ValueError(f"transport {self.transport!r} needs a url")
        return self

    def resolved_command(self) -> str:
        return self.command or sys.executable


class MCPSettings(_Section):
    connection: str = "hub"
    collection: str = "default"
    # deadlines: one tool call (a fresh data dir's first query may wait longer for its index), and
    # opening a session (start a stdio server, connect over HTTP, initialize, list the tools)
    call_timeout: float = Field(30.0, gt=0)
    connect_timeout: float = Field(30.0, gt=0)
    server_log: str | None = None  # file for stdio servers' stderr (relative = in the data dir); null = the terminal
    use_daemon: bool = True  # a running `paperpilot hub start` daemon stands in for the default bundled stdio hub
    # bearer token sent to HTTP connections that set no Authorization header (env PAPERPILOT_HUB_TOKEN)
    token: SecretStr | None = None
    connections: dict[str, MCPConnection] = Field(
        default_factory=lambda: {"hub": MCPConnection(args=["-m", "core.hub", "serve"])}
    )

    @model_validator(mode="after")
    def _check_default(self) -> MCPSettings:
        if self.connection not in self.connections:
            raise ValueError(f"connection {self.connection!r} is not among connections")
        return self


class CriticSettings(_Section):
    pass_score: float = Field(7.0, ge=0, le=10)
    min_faithfulness: float = Field(0.8, ge=0, le=1)
    min_completeness: float = Field(0.6, ge=0, le=1)


class WebFallbackSettings(_Section):
    """Stage K: when the knowledge base cannot support an answer, search beyond it (off by default;
    ``--offline`` keeps it off). ``url`` null = the provider's public endpoint (arxiv: arxiv.api_url,
    tavily: its cloud API); searxng needs its instance's URL, tavily an api_key."""

    enabled: bool = False
    provider: Literal["arxiv", "tavily", "searxng"] = "arxiv"
    api_key: SecretStr | None = None
    url: str | None = None
    max_results: int = Field(5, ge=1, le=20)
    timeout: float = Field(15.0, gt=0)
    on_no_evidence: bool = True  # also when the answer is the knowledge base's "no evidence", not only a forced pass


class ArxivSettings(_Section):
    """arXiv's public endpoints: the Atom search/metadata API and the PDFs (``ingest arxiv:ID``)."""

    api_url: str = "http://export.arxiv.org/api/query"
    pdf_url: str = "https://arxiv.org/pdf"
    timeout: float = Field(60.0, gt=0)
    download_deadline: float = Field(300.0, gt=0)  # seconds for a whole PDF download, however it trickles


class AgentSettings(_Section):
    max_retries: int = Field(2, ge=0, le=10)
    max_react_steps: int = Field(5, ge=1, le=20)
    max_plan_steps: int = Field(4, ge=1, le=10)
    top_k: int = Field(5, ge=1, le=20)
    # chunks per search of an exploratory (broad) question's ReAct loop: a survey question spans many
    # papers, so each search reaches further than a question about one fact
    broad_top_k: int = Field(8, ge=1, le=20)
    # a turn in a session another process is running a turn in: wait for it (at most session_wait
    # seconds, with a "waiting for session" notice) or fail at once with one line
    session_busy: Literal["wait", "fail"] = "wait"
    session_wait: float = Field(300.0, ge=0)
    turn_deadline: float = Field(900.0, gt=0)  # seconds for a whole turn (covers a fresh data dir's first index)
    router: Literal["auto", "rules", "lora", "llm"] = "auto"
    router_model: str | None = None  # adapter dir; null = the shipped adapter
    critic: Literal["auto", "rules", "local", "llm"] = "auto"
    critic_model: str | None = None
    critic_thresholds: CriticSettings = Field(default_factory=CriticSettings)
    # the call plan with an LLM brain (README "LLM calls per turn"): slot filling and memory facts by rules
    # unless asked otherwise; under critic auto the rule critic decides, and the LLM critic is asked only
    # when the rule score is within critic_band of pass_score
    slots: Literal["auto", "rules", "llm"] = "auto"  # auto = rules unless the question is ambiguous
    replan: Literal["auto", "llm"] = "auto"  # after a multi-hop step: auto = rules unless they would revise the plan
    facts: Literal["rules", "llm"] = "rules"  # rules = facts taken from the answer's own cited claims
    critic_band: float = Field(1.5, ge=0, le=10)
    # budgets per turn (null = unlimited): when one is reached the turn stops with the best draft so far
    max_llm_calls_per_turn: int | None = Field(None, ge=1)
    max_cost_per_turn: float | None = Field(None, gt=0)  # US dollars, from llm.pricing
    web_search_fallback: WebFallbackSettings = Field(default_factory=WebFallbackSettings)


class MemorySettings(_Section):
    enabled: bool = True
    recall_top_k: int = Field(3, ge=0, le=20)
    max_facts: int = Field(5000, ge=10)
    dedup_threshold: float = Field(0.92, gt=0, le=1)
    history_turns: int = Field(3, ge=0, le=20)


class TracingSettings(_Section):
    enabled: bool = True
    redact: list[str] = Field(default_factory=list)  # extra literal strings to scrub


class PathSettings(_Section):
    home: str | None = None  # null = $PAPERPILOT_HOME or the platform data dir
    hub_db: str = "hub.sqlite3"
    checkpoints_db: str = "checkpoints.sqlite3"
    state_db: str = "paperpilot.sqlite3"  # sessions, facts, traces

    def home_dir(self) -> Path:
        if self.home:
            return paths.data_dir(Path(self.home).expanduser(), "paths.home")
        return paths.home()

    def resolve(self, name: str) -> Path:
        p = Path(name).expanduser()
        return p if p.is_absolute() else self.home_dir() / p

    def file(self, key: str) -> Path:
        """The data file that setting ``key`` (e.g. "state_db") names, created private or refused in
        one line naming ``paths.<key>`` (:func:`core.paths.private_file`)."""
        return paths.private_file(self.resolve(getattr(self, key)), f"paths.{key}")


class LimitsSettings(_Section):
    """Size limits on what users and clients hand in (issue 17): past one, the input is refused
    with one line naming the setting, before any work is done on it (see :mod:`core.limits`)."""

    question_chars: int = Field(16_000, ge=1)  # a question (ask, the app); ~10 pages of text
    fact_chars: int = Field(2_000, ge=1)  # one long-term fact (memory add/edit/import, the browser)
    import_file_bytes: int = Field(20_000_000, ge=1)  # a `memory import` file
    ingest_file_bytes: int = Field(100_000_000, ge=1)  # one PDF, DOCX or PPTX to ingest
    ingest_text_bytes: int = Field(10_000_000, ge=1)  # one Markdown or text file to ingest (all of it is text)
    request_bytes: int = Field(100_000, ge=1)  # a hub tool call's arguments (UTF-8), and an HTTP request body
    hub_connections: int = Field(128, ge=1)  # HTTP requests the hub serves at once (an open event stream counts)


class WatchedFolder(_Section):
    path: str
    collection: str = "default"


class HubSettings(_Section):
    """The bundled hub: serving over HTTP (``paperpilot hub serve --transport http``), the folders the
    daemon watches, the document versions kept, and ingestion's OCR of scanned PDF pages and of images
    inside PDF, DOCX and PPTX files (:mod:`core.hub.ocr`, models shipped in the rapidocr-onnxruntime wheel), and
    where the index lives: the SQLite file ``paths.hub_db`` or PostgreSQL with pgvector (:mod:`core.hub.pg`); an
    empty ``dsn`` with ``backend: postgres`` is the embedded server in the data dir (``paperpilot hub pg start``)."""

    require_token: Literal["auto", "always"] = "always"  # auto: only off loopback (other local users reach it)
    watch: list[WatchedFolder] = Field(default_factory=list)  # a plain path means collection "default"
    keep_versions: int = Field(5, ge=1)  # versions of a document kept, the current one included
    debounce: float = Field(0.5, ge=0.05, le=10)  # quiet seconds after a file's last change before indexing
    ocr: Literal["auto", "all", "off"] = "auto"  # all: also OCR figures on PDF pages that have a text layer
    ocr_min_page_chars: int = Field(50, ge=0)  # a PDF page whose text layer has fewer characters is OCRed
    ocr_min_image_px: int = Field(200, ge=1)  # an embedded image narrower or shorter than this is not OCRed
    backend: Literal["sqlite", "postgres"] = "sqlite"
    dsn: str | None = None  # postgresql://user:pass@host:5432/db, or libpq key=value pairs; postgres only

    @field_validator("watch", mode="before")
    @classmethod
    def _paths(cls, v: Any) -> Any:
        return [{"path": x} if isinstance(x, str) else x for x in v] if isinstance(v, list) else v

    @field_validator("dsn")
    @classmethod
    def _check_dsn(cls, value: str | None) -> str | None:
        value = (value or "").strip()
        if not value:
            return None
        if "://" in value:
            from urllib.parse import urlsplit

            parts = urlsplit(value)
            if parts.scheme not in ("postgresql", "postgres"):
                raise ValueError(f"must be a postgresql:// URL or libpq key=value pairs (got scheme {parts.scheme!r})")
            try:
                parts.port  # noqa: B018 - raises on a port that is not a number
            except ValueError:
                raise ValueError("the port in the postgresql:// URL is not a number") from None
            return value
        if not re.fullmatch(r"\s*(\w+\s*=\s*('([^'\\]|\\.)*'|\S+)\s*)+", value):
            raise ValueError("must be a postgresql:// URL or libpq key=value pairs like 'host=/tmp dbname=hub'")
        return value


class TUISettings(_Section):
    theme: str = "textual-dark"
    keymap: dict[str, str] = Field(default_factory=dict)  # action id -> keys
    answer_pace: float = Field(default=0.25, ge=0, le=5)  # seconds between streamed offline sentences
    resume: Literal["new", "last"] = "new"  # the app opens on a new session, or the last one used (--continue)


class Settings(_Section):
    llm: LLMSettings = Field(default_factory=LLMSettings)
    mcp: MCPSettings = Field(default_factory=MCPSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)
    tracing: TracingSettings = Field(default_factory=TracingSettings)
    paths: PathSettings = Field(default_factory=PathSettings)
    tui: TUISettings = Field(default_factory=TUISettings)
    limits: LimitsSettings = Field(default_factory=LimitsSettings)
    arxiv: ArxivSettings = Field(default_factory=ArxivSettings)
    hub: HubSettings = Field(default_factory=HubSettings)

    def secrets(self) -> list[str]:
        """Configured secret values, scrubbed from everything persisted: traces, facts, checkpoints,
        session titles and exports (:class:`core.redact.Redactor`)."""
        out = [s for s in self.tracing.redact if s]
        if self.llm.api_key and self.llm.api_key.get_secret_value():
            out.append(self.llm.api_key.get_secret_value())
        if self.mcp.token and self.mcp.token.get_secret_value():
            out.append(self.mcp.token.get_secret_value())
        web_key = self.agent.web_search_fallback.api_key
        if web_key and web_key.get_secret_value():
            out.append(web_key.get_secret_value())
        for conn in self.mcp.connections.values():
            out += [v for k, v in conn.headers.items() if v and k.lower() in {"authorization", "x-api-key"}]
            out += [v for k, v in conn.env.items() if v and re.search(r"KEY|TOKEN|SECRET|PASS", k, re.I)]
        if self.hub.dsn and (m := re.search(r"://[^:/@]*:([^@]+)@|password\s*=\s*'?([^'\s]+)", self.hub.dsn)):
            out.append(m.group(1) or m.group(2))  # the database password in hub.dsn
        return out


_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_ENV_OVERRIDES = {
    "OPENAI_API_KEY": ("llm", "api_key"),
    "OPENAI_BASE_URL": ("llm", "base_url"),
    "PAPERPILOT_LLM_MODEL": ("llm", "model"),
    "PAPERPILOT_LLM_PROVIDER": ("llm", "provider"),
    "PAPERPILOT_HUB_TOKEN": ("mcp", "token"),
    "PAPERPILOT_HUB_BACKEND": ("hub", "backend"),  # also how the hub's child processes see these two
    "PAPERPILOT_HUB_DSN": ("hub", "dsn"),
}


MAX_YAML_NODES = 100_000  # a settings file is a few hundred nodes; aliases must not multiply them
MAX_YAML_DEPTH = 32  # a settings file nests 3-4 levels; composing 50,000 levels overflows the stack


class _UndefinedVar(Exception):
    def __init__(self, loc: tuple, var: str) -> None:
        super().__init__(var)
        self.loc, self.var = loc, var


def _expand(value: Any, loc: tuple = ()) -> Any:
    """``${VAR}`` and ``${VAR:-fallback}`` in strings; an unset ``${VAR}`` without a fallback raises."""
    if isinstance(value, str):
        def var(m: re.Match) -> str:
            if m.group(1) in os.environ:
                return os.environ[m.group(1)]
            if m.group(2) is not None:
                return m.group(2)
            raise _UndefinedVar(loc, m.group(1))

        return _VAR.sub(var, value)
    if isinstance(value, dict):
        return {k: _expand(v, (*loc, str(k))) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v, (*loc, str(i))) for i, v in enumerate(value)]
    return value


def _check_depth(text: str, path: Path) -> None:
    """Refuse a document nested deeper than :data:`MAX_YAML_DEPTH`, from the parser's events (the
    parser keeps its own stack; the composer, the constructor and everything after recurse)."""
    depth = 0
    for event in yaml.parse(text):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                raise ConfigError(f"{path}:{event.start_mark.line + 1}: nested more than {MAX_YAML_DEPTH} levels "
                                  "deep; not a settings file")
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


def _check_size(node: yaml.Node | None, path: Path) -> None:
    """Refuse a document whose aliases expand past :data:`MAX_YAML_NODES` (counted, not built)."""
    seen, stack = 0, [node] if node is not None else []
    while stack:
        n = stack.pop()
        seen += 1
        if seen > MAX_YAML_NODES:
            raise ConfigError(f"{path}: aliases expand to more than {MAX_YAML_NODES:,} values; not a settings file")
        if isinstance(n, yaml.MappingNode):
            stack += [x for pair in n.value for x in pair]
        elif isinstance(n, yaml.SequenceNode):
            stack += n.value


def _lines(node: yaml.Node, prefix: tuple = ()) -> dict[tuple, int]:
    """Map each key path in a YAML mapping to its 1-based line number."""
    out: dict[tuple, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key, val in node.value:
            path = prefix + (str(key.value),)
            out[path] = key.start_mark.line + 1
            out.update(_lines(val, path))
    return out


def _read_layer(path: Path) -> tuple[dict, dict[tuple, int]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read settings file ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x}); "
                          "save the settings file as UTF-8") from None
    try:
        _check_depth(text, path)
        node = yaml.compose(text)
        _check_size(node, path)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise ConfigError(f"{where}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    if data is None:
        return {}, {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1: settings must be a mapping of sections (llm, mcp, agent, ...)")
    return data, _lines(node)


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def defaults() -> dict[str, Any]:
    """Every default, spelled as a settings file spells it."""
    return Settings().model_dump(mode="json")


def load_settings(config_file: str | Path | None = None, *, use_user_file: bool = True) -> Settings:
    """Load and validate settings; raise :class:`ConfigError` with file, line and key on failure."""
    layers: list[Path] = []
    if config_file is not None:
        cf = Path(config_file).expanduser()
        if not cf.exists():
            raise ConfigError(f"{cf}: settings file not found")
        layers.append(cf)
    elif use_user_file and paths.user_config_file().exists():
        layers.append(paths.user_config_file())

    merged = defaults()
    origin: dict[tuple, tuple[Path, int]] = {}
    for layer in layers:
        data, lines = _read_layer(layer)
        merged = _merge(merged, data)
        origin.update({k: (layer, n) for k, n in lines.items()})
    try:
        merged = _expand(merged)
    except _UndefinedVar as exc:
        raise ConfigError(f"{_where(exc.loc, origin, layers)}: {'.'.join(exc.loc)}: ${{{exc.var}}} is not set "
                          f"(export it, or write ${{{exc.var}:-default}})") from None
    for var, (section, key) in _ENV_OVERRIDES.items():
        if os.environ.get(var):
            merged.setdefault(section, {})
            if isinstance(merged[section], dict):
                merged[section][key] = os.environ[var]
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = tuple(str(p) for p in err["loc"])
            problems.append((_where(loc, origin, layers), ".".join(loc) or "(top level)", err["msg"]))
        problems.sort(key=lambda p: _place(p[0]))  # in file order, as the user reads the file
        raise ConfigError(*(f"{where}: {key}: {msg}" for where, key, msg in problems)) from None


def _place(where: str) -> tuple[str, int]:
    """``("file", line)`` of a ``file:line`` place, for ordering problems (no line: first)."""
    head, _, line = where.rpartition(":")
    return (head, int(line)) if head and line.isdigit() else (where, 0)


def _where(loc: tuple, origin: dict[tuple, tuple[Path, int]], layers: list[Path]) -> str:
    """``file:line`` of the key at ``loc`` (or its nearest parent), else the file, else the environment."""
    for n in range(len(loc), 0, -1):
        if loc[:n] in origin:
            f, line = origin[loc[:n]]
            return f"{f}:{line}"
    if layers and not any(var for var in _ENV_OVERRIDES if os.environ.get(var)):
        return str(layers[-1])
    return "environment"
