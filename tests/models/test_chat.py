"""The transformers LLM provider: a local chat model (bundled SmolLM2 GGUF) that streams tokens."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from core.config import Settings
from core.models.chat import load_local_chat_model, to_chat_messages
from core.models.manager import ModelNotAvailable
from tests.support.extras import needs


def test_message_roles():
    msgs = to_chat_messages([SystemMessage(content="be brief"), HumanMessage(content="hi")])
    assert msgs == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


def test_missing_model_path_is_one_clean_line(tmp_path):
    settings = Settings()
    settings.llm.model = str(tmp_path / "no-such-model")
    with pytest.raises(ModelNotAvailable) as err:
        load_local_chat_model(settings)
    assert "\n" not in str(err.value) and "no-such-model" in str(err.value)


@pytest.mark.slow
@needs("train")
@needs("smollm2")
async def test_smollm2_streams_tokens():
    settings = Settings()
    settings.llm.provider = "transformers"
    settings.llm.model = "smollm2"
    settings.llm.max_tokens = 8
    chat = load_local_chat_model(settings)
    chunks = [c.content async for c in chat.astream([HumanMessage(content="Say hello.")])]
    assert len(chunks) >= 2 and all(isinstance(c, str) for c in chunks)
    full = await chat.ainvoke([HumanMessage(content="Say hello.")])
    assert full.content.strip() == "".join(chunks).strip()
