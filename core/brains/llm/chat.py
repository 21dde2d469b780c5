"""Build the chat model from settings, and turn endpoint failures into one user-facing line.

Any OpenAI-compatible server works through ``langchain_openai.ChatOpenAI``: OpenAI, DeepSeek, vLLM,
Ollama (``http://localhost:11434/v1``), a llama.cpp server. Local servers ignore the API key, but
the client insists on one, so a placeholder is used when only a base URL is configured.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from core.errors import BackendUnavailable
from core.config import ConfigError, Settings

DEFAULT_BASE_URL = "https://api.openai.com/v1"
NOT_JSON = "Unexpected response type from OpenAI-compatible endpoint"  # langchain-openai's ValueError text


def endpoint_of(settings: Settings) -> str:
    return settings.llm.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL


def build_chat_model(settings: Settings) -> Any:
    """A ``ChatOpenAI`` for ``settings.llm`` (its timeout; retries are :mod:`core.brains.llm.resend`'s)."""
    from langchain_openai import ChatOpenAI

    llm = settings.llm
    key = llm.api_key.get_secret_value() if llm.api_key else os.environ.get("OPENAI_API_KEY", "")
    if not key:
        if not llm.base_url:
            raise ConfigError("llm.api_key: the openai provider needs OPENAI_API_KEY or llm.base_url "
                              "(a local OpenAI-compatible server)")
        key = "not-needed"  # Ollama, vLLM and llama.cpp servers accept any key
    base_url = endpoint_of(settings)
    extra: dict[str, Any] = {}
    if base_url.rstrip("/") != DEFAULT_BASE_URL:
        # langchain-openai sends only ``max_completion_tokens``; older vLLM / llama.cpp / Ollama
        # servers read the classic ``max_tokens``, so send both to compatible servers.
        extra["extra_body"] = {"max_tokens": llm.max_tokens}
    _quiet_chunk_timeout_log()
    return ChatOpenAI(
        model=llm.model, base_url=base_url, api_key=key, temperature=llm.temperature,
        # no client-side retries: core.brains.llm.resend sends again only what is worth it (never a
        # request that timed out, which a busy local server would queue a second time)
        timeout=llm.timeout, max_retries=0, max_tokens=llm.max_tokens,
        # langchain-openai's own gap-between-chunks wall (120 s by default) would cut a streamed
        # call the user allowed llm.timeout for: a local server's first token can take minutes
        stream_chunk_timeout=llm.timeout, **extra,
    )


class _DropChunkTimeoutWarning(logging.Filter):
    """langchain-openai logs a WARNING when its chunk timeout fires; the turn reports it in one line
    of its own (core.brains.llm.resend), so the library's record would be a second, stray one."""

    def filter(self, record: logging.LogRecord) -> bool:
        return getattr(record, "source", None) != "stream_chunk_timeout"


def _quiet_chunk_timeout_log() -> None:
    log = logging.getLogger("langchain_openai.chat_models._client_utils")
    if not any(isinstance(f, _DropChunkTimeoutWarning) for f in log.filters):
        log.addFilter(_DropChunkTimeoutWarning())


def _first_line(text: str, limit: int = 200) -> str:
    line = " ".join(str(text).strip().splitlines()[0].split()) if str(text).strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _cause_text(exc: BaseException) -> str:
    """The innermost useful message (openai wraps httpx, which wraps the socket error)."""
    seen, cur, best = set(), exc, ""
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        text = _first_line(str(cur))
        if text and text.lower() not in ("connection error.", "request timed out."):
            best = text
        cur = cur.__cause__ or cur.__context__
    return best


def endpoint_error(exc: BaseException, base_url: str, model: str) -> BackendUnavailable | None:
    """Map an exception from a model call to :class:`BackendUnavailable`; ``None`` if it is not one."""
    try:
        import openai
    except ImportError:  # pragma: no cover - langchain-openai depends on it
        openai = None  # type: ignore[assignment]
    import httpx

    prefix = f"LLM endpoint {base_url} unreachable"
    reason: str | None = None
    if openai is not None:
        if isinstance(exc, openai.APITimeoutError):
            reason = "request timed out"
        elif isinstance(exc, openai.APIConnectionError):
            reason = f"connection failed ({_cause_text(exc) or 'no response'})"
        elif isinstance(exc, openai.AuthenticationError):
            reason = "authentication failed (401); check OPENAI_API_KEY"
        elif isinstance(exc, openai.PermissionDeniedError):
            reason = "permission denied (403)"
        elif isinstance(exc, openai.NotFoundError):
            reason = f"not found (404): model {model!r} or the URL path does not exist"
        elif isinstance(exc, openai.RateLimitError):
            reason = "rate limited or out of quota (429)"
        elif isinstance(exc, openai.InternalServerError):  # it answered: reachable, but failing
            return BackendUnavailable(f"LLM endpoint {base_url} failed: server error "
                                      f"{getattr(exc, 'status_code', 500)} (reachable; {_api_message(exc)})")
    if reason is None and isinstance(exc, ValueError) and str(exc).startswith(NOT_JSON):
        # langchain-openai's _create_chat_result: the body was not JSON (an HTML error page, a proxy's text)
        got = str(exc).split(" got ", 1)[-1]
        return BackendUnavailable(f"LLM endpoint {base_url} failed: the reply was not JSON ({_first_line(got, 80)})")
    if reason is None:
        if isinstance(exc, httpx.TimeoutException):
            reason = "request timed out"
        elif isinstance(exc, (httpx.ConnectError, httpx.NetworkError)):
            reason = f"connection failed ({_cause_text(exc) or type(exc).__name__})"
        elif isinstance(exc, (ConnectionError, TimeoutError)):
            reason = f"connection failed ({_cause_text(exc) or type(exc).__name__})"
    if reason is None:
        status = getattr(exc, "status_code", None)
        if openai is not None and isinstance(exc, openai.APIStatusError) and not is_request_rejected(exc):
            return BackendUnavailable(f"LLM endpoint {base_url} failed: HTTP {status} ({_api_message(exc)})")
        return None
    return BackendUnavailable(f"{prefix}: {reason}")


def _api_message(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return _first_line(str(inner["message"]))
    return _first_line(str(getattr(exc, "message", exc)))


def rejected_error(exc: BaseException, base_url: str) -> BackendUnavailable:
    """A 400/422 the caller could not work around (e.g. the prompt exceeds the context window)."""
    return BackendUnavailable(f"LLM endpoint {base_url} rejected the request "
                              f"(HTTP {getattr(exc, 'status_code', 400)}): {_api_message(exc)}")


def is_request_rejected(exc: BaseException) -> bool:
    """A 400/422 answer: the server is up but rejects the request shape (e.g. no tool support)."""
    try:
        import openai
    except ImportError:  # pragma: no cover
        return False
    return isinstance(exc, (openai.BadRequestError, openai.UnprocessableEntityError))
