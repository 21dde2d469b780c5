"""The scripted chat model speaks the real LangChain interface other suites rely on."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from tests.support.scripted_model import ScriptedChatModel, ScriptExhausted, by_purpose


class Answer(BaseModel):
    value: int


def test_invoke_records_prompts_and_reports_usage():
    model = ScriptedChatModel(script=["hello there"])
    reply = model.invoke([SystemMessage(content="be brief"), HumanMessage(content="hi")])
    assert reply.content == "hello there" and reply.usage_metadata["output_tokens"] == 2
    assert model.prompts == ["be brief\n\nhi"] and model.calls[0].stream is False


async def test_astream_yields_chunks_and_usage_last():
    model = ScriptedChatModel(script=["one two three"], delay=0.001)
    chunks = [c async for c in model.astream("go")]
    assert "".join(c.content for c in chunks) == "one two three" and len(chunks) >= 4
    assert chunks[-1].usage_metadata is not None and model.calls[0].stream


async def test_with_structured_output_through_bind_tools():
    model = ScriptedChatModel(script=['{"value": 7}', "not json"])
    structured = model.with_structured_output(Answer, include_raw=True)
    first = await structured.ainvoke("give me seven")
    assert first["parsed"] == Answer(value=7) and model.calls[0].tool_names == ["Answer"]
    second = await structured.ainvoke("again")
    assert second["parsed"] is None and second["raw"].content == "not json"


async def test_callables_exceptions_and_exhaustion():
    boom = RuntimeError("endpoint exploded")
    model = ScriptedChatModel(script=[lambda call: f"echo {len(call.messages)}", AIMessage(content="msg"), boom])
    assert (await model.ainvoke("a")).content == "echo 1"
    assert (await model.ainvoke("b")).content == "msg"
    with pytest.raises(RuntimeError, match="exploded"):
        await model.ainvoke("c")
    with pytest.raises(ScriptExhausted):
        await model.ainvoke("d")


async def test_respond_callback_with_messages_only_and_by_purpose_default():
    model = ScriptedChatModel(respond=lambda messages: messages[-1].content.upper())
    assert (await model.ainvoke("shout")).content == "SHOUT"
    fallback = ScriptedChatModel(respond=by_purpose({"route": "{}"}, default="plain"))
    assert (await fallback.ainvoke("no purpose here")).content == "plain"
    strict = ScriptedChatModel(respond=by_purpose({"route": "{}"}))
    with pytest.raises(ScriptExhausted, match="purpose"):
        await strict.ainvoke("x")
