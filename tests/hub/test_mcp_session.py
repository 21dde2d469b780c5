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
