"""The thin MCP boundary: the stdio server's stderr, and the version-checked validation speed-up."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from core.brains.base import BackendUnavailable
from core.config import MCPConnection, MCPSettings
from core.tools import mcp_session
from core.tools.hub_client import HubClient
from core.tools.mcp_session import compile_output_validation

SCHEMA = {"type": "object", "properties": {"citations": {"type": "array"}}, "required": ["citations"]}


class FakeSession:
    def __init__(self) -> None:
        self._tool_output_schemas = {"query": SCHEMA, "plain": None}
        self.listed = 0

    async def list_tools(self) -> None:
        self.listed += 1
        self._tool_output_schemas["late"] = SCHEMA


def _result(structured):
    return SimpleNamespace(structuredContent=structured)


async def test_compiled_validation_accepts_and_rejects_like_the_sdk():
    session = FakeSession()
    assert compile_output_validation(session)
    await session._validate_tool_result("query", _result({"citations": []}))
    await session._validate_tool_result("plain", _result(None))
    with pytest.raises(RuntimeError, match="Invalid structured content returned by tool query"):
        await session._validate_tool_result("query", _result({"citations": 3}))
    with pytest.raises(RuntimeError, match="did not return structured content"):
        await session._validate_tool_result("query", _result(None))
    with pytest.raises(RuntimeError, match="tool late"):
        await session._validate_tool_result("late", _result({}))
    assert session.listed == 1


def test_validation_is_left_to_the_sdk_outside_the_checked_versions(monkeypatch):
    monkeypatch.setattr(mcp_session, "_mcp_version", lambda: mcp_session.VALIDATION_CHECKED[1])
    session = FakeSession()
    assert not compile_output_validation(session)
    assert "_validate_tool_result" not in vars(session)


def test_installed_sdk_is_within_the_checked_versions():
    low, high = mcp_session.VALIDATION_CHECKED
    assert low <= mcp_session._mcp_version() < high


async def test_stdio_server_stderr_goes_to_the_configured_log(tmp_path):
    crash = "import sys; sys.stderr.write('hub exploded on start\\n'); sys.exit(1)"
    conn = MCPConnection(command=sys.executable, args=["-c", crash])
    log = tmp_path / "servers.log"
    settings = MCPSettings(connection="bad", call_timeout=20, server_log=str(log), connections={"bad": conn})
    with pytest.raises(BackendUnavailable, match="MCP server bad \\(stdio\\) unreachable"):
        async with HubClient(settings):
            pass
    assert "hub exploded on start" in log.read_text()


def test_the_app_sends_stdio_server_stderr_to_the_data_dir(tmp_path):
    from core.config import Settings
    from paperpilot_tui.runtime import quiet_stdio_servers

    settings = Settings.model_validate({"paths": {"home": str(tmp_path)}})
    quiet = quiet_stdio_servers(settings)
    assert quiet.mcp.server_log == str(tmp_path / "hub-stderr.log") and settings.mcp.server_log is None


async def test_a_real_search_result_passes_and_a_broken_one_fails_with_the_sdk_s_words():
    """The fast compiled check accepts what the hub sends and, on a broken result, the error is
    jsonschema's own (the words the SDK would use)."""
    import copy

    import jsonschema

    from core.hub import render
    from core.hub.search import Hit
    from core.hub.store import ChunkRow

    schema = render.SearchResult.model_json_schema()
    session = FakeSession()
    session._tool_output_schemas["query_knowledge_hub"] = schema
    assert compile_output_validation(session)
    chunk = ChunkRow(1, "c1", "d1", "default", 0, ["LoRA", "Method"], "LoRA > Method", None,
                     "LoRA freezes the weights.", title="LoRA", path="lora.md", doc_type="md")
    hit = Hit(chunk, 0.5, lexical_rank=1)
    good = render.search_result([hit], "lora", "default").structuredContent
    await session._validate_tool_result("query_knowledge_hub", _result(good))
    bad = copy.deepcopy(good)
    del bad["citations"][0]["chunk_id"]
    expected = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(bad)).message
    with pytest.raises(RuntimeError) as err:
        await session._validate_tool_result("query_knowledge_hub", _result(bad))
    assert str(err.value) == f"Invalid structured content returned by tool query_knowledge_hub: {expected}"


def test_a_schema_with_a_remote_ref_is_not_fetched(monkeypatch):
    import urllib.request

    def no_network(*args, **kwargs):
        raise AssertionError("fetched a remote schema")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    assert mcp_session._fast_check({"$ref": "https://example.com/schema.json"}) is None
    assert mcp_session._fast_check(SCHEMA) is not None
