"""ScriptedChatModel: a real LangChain chat model whose replies come from a script.

It is the only mock in the suite, standing at the cloud-LLM edge. It speaks the full interface the
brain uses — ``ainvoke``/``invoke``, ``astream`` with chunks, ``bind_tools`` and therefore
``with_structured_output`` (function calling), ``usage_metadata`` — and records every request so
tests can assert what the prompts contained.

Replies come from ``script`` (consumed in order; items are text, an ``AIMessage``, an exception to
raise, or a callable ``f(call) -> str | AIMessage``) and then from ``respond`` (a callable taking
``messages`` or ``(messages, call)``). When tools are bound (structured output) and the reply text
is a JSON object, it is returned as a tool call, the way a function-calling server would; any
other text comes back as plain content, like a model that ignored the tool.

    model = ScriptedChatModel(respond=by_purpose({"route": '{"type": "factual", "confidence": 0.9}',
                                                  "synthesis": "LoRA freezes the weights [1]."}))
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any
from collections.abc import AsyncIterator, Callable, Iterator, Sequence

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr

from core.brains.llm.caller import current_purpose

_PIECES = re.compile(r"\S+\s*|\s+")


class ScriptExhausted(AssertionError):
    """The model was called more often than the test scripted."""


@dataclass
class ScriptedCall:
    """One request the model received."""

    messages: list[BaseMessage]
    tools: list[dict] = field(default_factory=list)
    purpose: str | None = None  # run metadata "paperpilot_purpose" (set by the LLM brain)
    stream: bool = False

    @property
    def text(self) -> str:
        """All message contents joined: what the prompt said, for ``in`` assertions."""
        return "\n\n".join(_content_text(m.content) for m in self.messages)

    @property
    def tool_names(self) -> list[str]:
        return [t.get("function", {}).get("name", "") for t in self.tools]


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content or [])


def estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


def by_purpose(replies: dict[str, Any], default: Any = None) -> Callable[[list[BaseMessage], ScriptedCall], Any]:
    """A ``respond`` callback answering by the call's purpose (``plan.revise`` falls back to ``plan``).

    Values are text, an ``AIMessage``, or a callable ``f(call)``; ``default`` answers the rest.
    """

    def respond(messages: list[BaseMessage], call: ScriptedCall) -> Any:
        purpose = call.purpose or ""
        for key in (purpose, purpose.split(".")[0]):
            if key in replies:
                reply = replies[key]
                return reply(call) if callable(reply) else reply
        if default is None:
            raise ScriptExhausted(f"no scripted reply for purpose {purpose!r}")
        return default(call) if callable(default) else default

    return respond


class ScriptedChatModel(BaseChatModel):
    """A chat model that replies from a script and records every request (see module docstring)."""

    script: list[Any] = Field(default_factory=list)
    respond: Callable[..., Any] | None = None
    delay: float = 0.0  # seconds between streamed chunks (streaming tests); 0 = none
    report_usage: bool = True  # False: no usage_metadata, so callers must estimate tokens
    json_as_tool_call: bool = True
    model_name: str = "scripted"
    _calls: list[ScriptedCall] = PrivateAttr(default_factory=list)
    _cursor: int = PrivateAttr(default=0)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    # -- what tests read --------------------------------------------------------------------
    @property
    def calls(self) -> list[ScriptedCall]:
        return self._calls

    @property
    def prompts(self) -> list[str]:
        return [c.text for c in self._calls]

    def calls_for(self, purpose: str) -> list[ScriptedCall]:
        return [c for c in self._calls if c.purpose == purpose]

    # -- tools --------------------------------------------------------------------------------
    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(t) for t in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    # -- replies --------------------------------------------------------------------------------
    def _record(self, messages: list[BaseMessage], run_manager: Any, kwargs: dict, stream: bool) -> ScriptedCall:
        metadata = getattr(run_manager, "metadata", None) or {}
        purpose = metadata.get("paperpilot_purpose") or current_purpose.get()
        call = ScriptedCall(messages=list(messages), tools=list(kwargs.get("tools") or []),
                            purpose=purpose, stream=stream)
        self._calls.append(call)
        return call

    def _next(self, call: ScriptedCall) -> AIMessage:
        if self._cursor < len(self.script):
            item = self.script[self._cursor]
            self._cursor += 1
        elif self.respond is not None:
            item = self.respond
        else:
            raise ScriptExhausted(f"call #{len(self._calls)} ({call.purpose}) has no scripted reply")
        if isinstance(item, BaseException):
            raise item
        if callable(item):
            if _arity(item) >= 2:
                item = item(call.messages, call)
            else:  # respond(messages), or a script item f(call)
                item = item(call.messages) if item is self.respond else item(call)
        if isinstance(item, BaseException):
            raise item
        message = item if isinstance(item, AIMessage) else AIMessage(content=str(item))
        if call.tools and self.json_as_tool_call and not message.tool_calls:
            message = self._as_tool_call(message, call)
        if self.report_usage and message.usage_metadata is None:
            prompt = estimate_tokens(call.text)
            reply = _content_text(message.content) + "".join(json.dumps(t["args"]) for t in message.tool_calls)
            completion = estimate_tokens(reply)
            message.usage_metadata = {"input_tokens": prompt, "output_tokens": completion,
                                      "total_tokens": prompt + completion}
        return message

    def _as_tool_call(self, message: AIMessage, call: ScriptedCall) -> AIMessage:
        text = _content_text(message.content).strip()
        try:
            args = json.loads(text)
        except json.JSONDecodeError:
            return message  # not JSON: reply as text, like a model that ignored the tool
        if not isinstance(args, dict):
            return message
        name = call.tool_names[0] if call.tool_names else "tool"
        return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:8]}"}])

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        call = self._record(messages, run_manager, kwargs, stream=False)
        return ChatResult(generations=[ChatGeneration(message=self._next(call))])

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: AsyncCallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        return self._generate(messages, stop, run_manager, **kwargs)  # type: ignore[arg-type]

    def _chunks(self, message: AIMessage) -> list[AIMessageChunk]:
        pieces = _PIECES.findall(_content_text(message.content)) or [""]
        chunks = [AIMessageChunk(content=p) for p in pieces]
        if message.usage_metadata is not None:
            chunks.append(AIMessageChunk(content="", usage_metadata=message.usage_metadata, chunk_position="last"))
        return chunks

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        call = self._record(messages, run_manager, kwargs, stream=True)
        for chunk in self._chunks(self._next(call)):
            yield ChatGenerationChunk(message=chunk)

    async def _astream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                       run_manager: AsyncCallbackManagerForLLMRun | None = None,
                       **kwargs: Any) -> AsyncIterator[ChatGenerationChunk]:
        call = self._record(messages, run_manager, kwargs, stream=True)
        for i, chunk in enumerate(self._chunks(self._next(call))):
            if self.delay and i:
                await asyncio.sleep(self.delay)
            yield ChatGenerationChunk(message=chunk)


def _arity(fn: Callable[..., Any]) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 1
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 2
    return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)
