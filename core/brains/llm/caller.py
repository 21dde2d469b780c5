"""Calling the chat model: structured replies with repair, streamed text, and accounting.

Every request is first admitted by the turn's budget (:mod:`core.budget`; past a limit it is not
sent and :class:`~core.budget.BudgetExceeded` is raised), then emits one :class:`core.events.LLMCall`
(purpose, model, tokens, cost, duration); token counts come from ``usage_metadata`` when the server
reports it, else an estimate of ~4 characters per token, and the cost from ``llm.pricing``.
Endpoint failures become :class:`BackendUnavailable` with one line.

Structured replies go through ``with_structured_output(..., include_raw=True)`` using function
calling (the most widely supported mode among OpenAI-compatible servers). Whatever comes back is
checked by :func:`parse_tolerant`; a reply that still does not parse gets one short repair request.
``structured`` returns ``None`` when both fail; the brain then falls back for that one judgement.
"""

from __future__ import annotations

import asyncio

import inspect
import re
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel

from core import budget
from core.config import Price
from core.errors import BackendUnavailable
from core.brains.llm.chat import endpoint_error, is_request_rejected, rejected_error
from core.brains.llm.inflight import abandoned_note, tracked
from core.brains.llm.resend import backoff, is_timeout, is_transient, send, timeout_error
from core.brains.llm.structured import message_text, parse_tolerant, strip_think
from core.events import LLMCall, Notice
from core.prompts.common import REPAIR, json_spec
from core.telemetry import emit

TokenSink = Callable[[str], Awaitable[None] | None]

# The purpose of the model request in progress. Run metadata carries it too, but LangChain does not
# hand metadata to ``_astream``; scripted test models read this instead.
current_purpose: ContextVar[str | None] = ContextVar("paperpilot_llm_purpose", default=None)


def estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


def prompt_tokens(messages: list[BaseMessage]) -> int:
    """An estimate of a prompt's tokens (about 4 characters a token)."""
    return estimate_tokens("".join(message_text(m.content) for m in messages))


CUT_RATIO = 1.6  # a server that counts this much less of a long prompt than was sent has cut it


class ModelCaller:
    """Wraps one chat model; knows its endpoint (for error lines) and its display name."""

    def __init__(self, model: Any, *, model_name: str, base_url: str, retries: int = 0,
                 timeout: float = 30.0, price: Price | None = None) -> None:
        self.model = model
        self.price = price  # llm.pricing's entry for this model; None = free (a local model)
        self.model_name = model_name
        self.base_url = base_url
        self.retries = retries  # transient failures are sent again by :func:`resend.send`, never timeouts
        self.timeout = timeout
        self.tools_ok = True  # cleared when the server rejects tool calls; then JSON-in-text only
        self._runnables: dict[type, Any] = {}

    # -- accounting -------------------------------------------------------------------------
    def _admit(self, purpose: str) -> None:
        """Let the turn's budget refuse the request before it is sent (:mod:`core.budget`)."""
        turn = budget.current()
        if turn is not None:
            turn.admit(purpose)

    def _config(self, purpose: str) -> dict:
        return {"run_name": f"paperpilot.{purpose}", "metadata": {"paperpilot_purpose": purpose}}

    def _account(self, purpose: str, messages: list[BaseMessage], reply_text: str, usage: dict | None,
                 started: float) -> None:
        prompt = completion = 0
        if usage:
            prompt, completion = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
        sent = prompt_tokens(messages)
        if prompt and sent > 500 and sent > CUT_RATIO * prompt:
            emit(Notice(level="warning", source=f"llm:{self.model_name}",
                        message=f"the server read {prompt} tokens of a prompt of about {sent}: it probably cut the "
                                f"prompt to its context size; set llm.context_tokens to that size (or enlarge it)"))
        if not prompt:
            prompt = sent
        if not completion:
            completion = estimate_tokens(reply_text)
        cost = budget.cost_of(self.price, prompt, completion)
        turn = budget.current()
        if turn is not None:
            turn.charge(cost)
        emit(LLMCall(purpose=purpose, model=self.model_name, prompt_tokens=prompt, completion_tokens=completion,
                     cost=cost, duration_ms=(time.perf_counter() - started) * 1000))

    def _raise_if_endpoint(self, exc: BaseException, *, allow_rejected: bool = False) -> None:
        """Raise the one-line BackendUnavailable for endpoint failures; return for anything else.

        ``allow_rejected`` lets a 400/422 through so the caller can retry without tools.
        """
        mapped = endpoint_error(exc, self.base_url, self.model_name)
        if mapped is None and not allow_rejected and is_request_rejected(exc):
            mapped = rejected_error(exc, self.base_url)
        if mapped is not None:
            raise mapped from None

    def _warn_if_abandoned(self) -> None:
        """Say once that a request a cancelled turn left behind may still occupy the server."""
        note = abandoned_note(self.base_url)
        if note:
            emit(Notice(level="warning", source=f"llm:{self.model_name}", message=note))

    async def _send(self, call: Callable[[], Awaitable[Any]], purpose: str) -> Any:
        self._warn_if_abandoned()
        async with tracked(self.base_url, purpose, self.timeout):
            return await send(call, retries=self.retries, base_url=self.base_url, timeout=self.timeout)

    # -- plain text ---------------------------------------------------------------------------
    async def text(self, messages: list[BaseMessage], purpose: str) -> str:
        self._admit(purpose)
        started = time.perf_counter()
        try:
            token = current_purpose.set(purpose)
            try:
                reply = await self._send(lambda: self.model.ainvoke(messages, config=self._config(purpose)), purpose)
            finally:
                current_purpose.reset(token)
        except BackendUnavailable:
            raise
        except Exception as exc:
            self._raise_if_endpoint(exc)
            raise
        text = message_text(getattr(reply, "content", reply))
        self._account(purpose, messages, text, getattr(reply, "usage_metadata", None), started)
        return text

    async def stream(self, messages: list[BaseMessage], purpose: str, on_token: TokenSink | None) -> str:
        """Stream a reply, forwarding visible tokens (``<think>`` blocks are hidden) to ``on_token``.
        A transient failure before the first chunk (a refused connection, a 429, a 5xx) is sent again
        like any call (``llm.retries``, with back-off); once tokens have arrived, it is not."""
        self._admit(purpose)
        started = time.perf_counter()
        hide = ThinkFilter()
        parts: list[str] = []
        usage: dict[str, int] = {}
        attempt = 0
        token = current_purpose.set(purpose)
        self._warn_if_abandoned()
        try:
            async with tracked(self.base_url, purpose, self.timeout) as progress:
                while True:
                    try:
                        async for chunk in self.model.astream(messages, config=self._config(purpose)):
                            progress.streaming = True
                            meta = getattr(chunk, "usage_metadata", None)
                            if meta:
                                for k in ("input_tokens", "output_tokens"):
                                    usage[k] = usage.get(k, 0) + int(meta.get(k) or 0)
                            visible = hide.feed(message_text(chunk.content))
                            if visible:
                                parts.append(visible)
                                await deliver(on_token, visible)
                            progress.chunks += 1
                        break
                    except Exception as exc:
                        if progress.chunks or attempt >= self.retries or not is_transient(exc):
                            raise
                        await asyncio.sleep(backoff(exc, attempt))
                        attempt += 1
        except BackendUnavailable:
            raise
        except Exception as exc:
            if is_timeout(exc):  # never re-sent: the server may still be working on it
                raise await timeout_error(self.base_url, self.timeout, exc, chunks=progress.chunks) from None
            self._raise_if_endpoint(exc)
            raise
        finally:
            current_purpose.reset(token)
        tail = hide.flush()
        if tail:
            parts.append(tail)
            await deliver(on_token, tail)
        text = "".join(parts).strip()
        self._account(purpose, messages, text, usage, started)
        return text

    # -- structured -------------------------------------------------------------------------
    def _structured_runnable(self, schema: type[BaseModel]) -> Any | None:
        if schema not in self._runnables:
            try:
                method = self.model.with_structured_output
                kwargs: dict[str, Any] = {"include_raw": True}
                if "method" in inspect.signature(method).parameters:
                    kwargs["method"] = "function_calling"
                self._runnables[schema] = method(schema, **kwargs)
            except (NotImplementedError, ValueError, TypeError, AttributeError):
                self._runnables[schema] = None
        return self._runnables[schema]

    async def structured(self, schema: type[BaseModel], messages: list[BaseMessage], purpose: str) -> BaseModel | None:
        raw_text, rejected = "", False
        runnable = self._structured_runnable(schema) if self.tools_ok else None
        if runnable is not None:
            self._admit(purpose)
            started = time.perf_counter()
            token = current_purpose.set(purpose)
            try:
                out = await self._send(lambda: runnable.ainvoke(messages, config=self._config(purpose)), purpose)
            except BackendUnavailable:
                raise
            except Exception as exc:
                self._raise_if_endpoint(exc, allow_rejected=True)
                if not is_request_rejected(exc):
                    raise
                rejected = True  # e.g. a llama.cpp server started without tool support
                out = None
            finally:
                current_purpose.reset(token)
            if out is not None:
                raw = out.get("raw")
                raw_text = _raw_text(raw)
                self._account(purpose, messages, raw_text, getattr(raw, "usage_metadata", None), started)
                parsed = out.get("parsed")
                if isinstance(parsed, schema):
                    return parsed
                for candidate in _tool_args(raw) + [raw_text]:
                    value = parse_tolerant(candidate, schema)
                    if value is not None:
                        return value
        if runnable is None or rejected:
            raw_text = await self.text(messages, purpose)
            if rejected:
                self.tools_ok = False  # the same request without tools went through: stay without
            value = parse_tolerant(raw_text, schema)
            if value is not None:
                return value
        repair = list(messages) + [AIMessage(content=raw_text or "(empty reply)"),
                                   HumanMessage(content=REPAIR + json_spec(schema))]
        return parse_tolerant(await self.text(repair, f"{purpose}.repair"), schema)


def _raw_text(raw: Any) -> str:
    if raw is None:
        return ""
    text = message_text(getattr(raw, "content", raw))
    if not text.strip():
        calls = _tool_args(raw)
        if calls:
            import json

            return json.dumps(calls[0], ensure_ascii=False, default=str)
    return text


def _tool_args(raw: Any) -> list[Any]:
    """Arguments of the tool calls in ``raw`` (valid dicts first, then unparsed argument strings)."""
    out: list[Any] = [c.get("args") for c in (getattr(raw, "tool_calls", None) or []) if c.get("args") is not None]
    out += [c.get("args") for c in (getattr(raw, "invalid_tool_calls", None) or []) if c.get("args")]
    return out


async def deliver(on_token: TokenSink | None, text: str) -> None:
    if on_token is None:
        return
    result = on_token(text)
    if inspect.isawaitable(result):
        await result


class ThinkFilter:
    """Hide ``<think>…</think>`` blocks in a token stream, even when tags are split across chunks."""

    OPEN, CLOSE = "<think>", "</think>"

    def __init__(self) -> None:
        self.buf = ""
        self.inside = False

    def feed(self, text: str) -> str:
        self.buf += text
        out: list[str] = []
        while self.buf:
            tag = self.CLOSE if self.inside else self.OPEN
            idx = self.buf.lower().find(tag)
            if idx >= 0:
                if not self.inside:
                    out.append(self.buf[:idx])
                self.buf = self.buf[idx + len(tag):]
                self.inside = not self.inside
                continue
            keep = _partial_suffix(self.buf.lower(), tag)
            if not self.inside:
                out.append(self.buf[: len(self.buf) - keep])
            self.buf = self.buf[len(self.buf) - keep:] if keep else ""
            break
        return "".join(out)

    def flush(self) -> str:
        rest, self.buf = ("" if self.inside else self.buf), ""
        return rest


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of ``tag``."""
    for n in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:n]):
            return n
    return 0


def clean_answer(text: str) -> str:
    return re.sub(r"\n{3,}", "\n\n", strip_think(text)).strip()
