"""When to send a model request again, and what a timeout means.

The OpenAI client's own retries re-send a request after a timeout, which a busy single-request
local server (llama.cpp, Ollama) answers by queueing the same long prompt again behind the one it
is still working on. So the client is built with ``max_retries=0`` and :func:`send` decides:

- a refused connection, a 429 or a 5xx is sent again after a back-off (``Retry-After`` when the
  server gives one, else 0.5 s doubling, at most 8 s), up to ``llm.retries`` times;
- a timeout is never re-sent. Its line says what fired: "no reply within N s" (a plain call), "no
  first token within N s" or "no tokens for N s" (a stream, by whether any chunk arrived). The
  endpoint is then probed (``GET …/models``, 3 s): it is "slow" when the probe answers (up, still
  working: raise ``llm.timeout``); when it does not, it is "busy" if our request's connection was
  accepted (a single-request server computing) and "unreachable" only if no connection was made.

``llm.timeout`` bounds every part of a call (connect, first token, gap between tokens): the client's
HTTP timeout and langchain-openai's own ``stream_chunk_timeout`` (120 s by default) are both set
from it, so no library default cuts a call the user allowed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from core.errors import BackendUnavailable

T = TypeVar("T")
PROBE_TIMEOUT_S = 3.0
MAX_BACKOFF_S = 8.0


def _openai():
    import openai

    return openai


def is_timeout(exc: BaseException) -> bool:
    import httpx

    return isinstance(exc, (_openai().APITimeoutError, httpx.TimeoutException, TimeoutError))


def is_transient(exc: BaseException) -> bool:
    """Worth sending again after a pause: a refused connection, a rate limit, a server error."""
    openai = _openai()
    if is_timeout(exc):
        return False
    return isinstance(exc, (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError))


def backoff(exc: BaseException, attempt: int) -> float:
    """Seconds before the next try: the server's ``Retry-After`` if it sent one, else 0.5·2^attempt."""
    response = getattr(exc, "response", None)
    header = response.headers.get("retry-after") if response is not None else None
    try:
        wait = float(header) if header is not None else 0.5 * 2 ** attempt
    except ValueError:
        wait = 0.5 * 2 ** attempt
    return max(0.0, min(wait, MAX_BACKOFF_S))


async def probe(base_url: str) -> bool:
    """Whether the endpoint answers at all (any HTTP status) within PROBE_TIMEOUT_S."""
    import httpx

    try:
        async with httpx.AsyncClient(timeout=PROBE_TIMEOUT_S) as client:
            await client.get(base_url.rstrip("/") + "/models")
        return True
    except httpx.HTTPError:
        return False


def _never_connected(exc: BaseException | None) -> bool:
    """Whether the timeout fired before a TCP connection was made (httpx's ConnectTimeout in the chain)."""
    import httpx

    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, httpx.ConnectTimeout):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def what_fired(timeout: float, chunks: int | None) -> str:
    """``chunks``: None for a plain call, else how many stream chunks had arrived."""
    if chunks is None:
        return f"no reply within {timeout:g} s"
    if chunks == 0:
        return f"no first token within {timeout:g} s"
    return f"no tokens for {timeout:g} s (after {chunks} chunks)"


async def timeout_error(base_url: str, timeout: float, exc: BaseException | None = None,
                        chunks: int | None = None) -> BackendUnavailable:
    what = what_fired(timeout, chunks)
    if await probe(base_url):
        return BackendUnavailable(
            f"LLM endpoint {base_url} is slow: {what} (llm.timeout); the server is up "
            "but still working, so the request was not sent again — raise llm.timeout for a local server")
    if _never_connected(exc):
        return BackendUnavailable(f"LLM endpoint {base_url} unreachable: no connection within {timeout:g} s")
    return BackendUnavailable(
        f"LLM endpoint {base_url} is busy: it accepted the connection but sent {what} and does not answer "
        "a probe either (a single-request server still computing?); the request was not sent again — "
        "raise llm.timeout for a slow local server")


async def send(call: Callable[[], Awaitable[T]], *, retries: int, base_url: str, timeout: float) -> T:
    """``await call()``, sent again on transient failures only; a timeout becomes one clear line."""
    attempt = 0
    while True:
        try:
            return await call()
        except BackendUnavailable:
            raise
        except Exception as exc:
            if is_timeout(exc):
                raise await timeout_error(base_url, timeout, exc) from None
            if attempt >= retries or not is_transient(exc):
                raise
            await asyncio.sleep(backoff(exc, attempt))
            attempt += 1
