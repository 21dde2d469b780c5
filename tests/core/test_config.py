"""Settings: defaults, layering, ${VAR} expansion, environment overrides, one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel

from core import config
from core.config import ConfigError, MCPConnection, Settings, load_settings


def test_defaults_match_documented_file():
    s = load_settings(use_user_file=False)
    assert s.agent.max_retries == 2
    assert s.agent.max_react_steps == 5
    assert s.llm.resolved_provider() == "offline"
    hub = s.mcp.connections[s.mcp.connection]
    assert hub.transport == "stdio" and hub.args == ["-m", "core.hub", "serve"]


def test_user_file_overrides_only_its_keys(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text("agent:\n  top_k: 7\n")
    s = load_settings(f)
    assert s.agent.top_k == 7 and s.agent.max_retries == 2


def test_bad_value_names_file_line_and_key(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text("llm:\n  provider: offline\nagent:\n  max_retries: lots\n")
    with pytest.raises(ConfigError) as err:
        load_settings(f)
    msg = str(err.value)
    assert f"{f}:4" in msg and "agent.max_retries" in msg and "\n" not in msg


def test_unknown_key_is_rejected(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text("agent:\n  max_retrys: 3\n")
    with pytest.raises(ConfigError, match=r"s.yaml:2: agent.max_retrys"):
        load_settings(f)


def test_yaml_syntax_error_names_line(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text("agent:\n  top_k: [1, 2\nllm: {}\n")
    with pytest.raises(ConfigError, match=r"s.yaml:\d+: not valid YAML"):
        load_settings(f)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_settings(tmp_path / "nope.yaml")


def test_env_expansion_and_overrides(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_TOKEN", "sekret")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("PAPERPILOT_LLM_MODEL", "my-model")
    f = tmp_path / "s.yaml"
    f.write_text(
        "mcp:\n  connections:\n    up:\n      transport: streamable_http\n"
        "      url: http://127.0.0.1:8000/mcp\n      headers: {Authorization: 'Bearer ${RAG_TOKEN}'}\n"
        "      env: {X: '${UNSET_VAR:-fallback}'}\n"
    )
    s = load_settings(f)
    up = s.mcp.connections["up"]
    assert up.headers["Authorization"] == "Bearer sekret"
    assert up.env["X"] == "fallback"
    assert s.llm.base_url == "http://127.0.0.1:9/v1" and s.llm.model == "my-model"
    # a base URL exported for some other tool does not switch the brain on by itself (app issue, defect 9)
    assert s.llm.choice() == ("offline", "auto: URL, no key")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert load_settings(f).llm.choice() == ("openai", "auto: key set")
    assert "Bearer sekret" in s.secrets()


def test_http_connection_needs_url(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text("mcp:\n  connections:\n    up:\n      transport: sse\n")
    with pytest.raises(ConfigError, match="mcp.connections.up"):
        load_settings(f)


def test_paperpilot_home_holds_data(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "h"))
    s = load_settings(use_user_file=False)
    assert s.paths.resolve(s.paths.state_db) == tmp_path / "h" / "paperpilot.sqlite3"


DOCUMENTED = Path(__file__).resolve().parents[2] / "config" / "settings.yaml"


def _documented_keys(model: type[BaseModel], doc: dict, prefix: str = "") -> list[str]:
    """Fields of ``model`` (recursively through sections) missing from the documented mapping."""
    missing = []
    for name, field in model.model_fields.items():
        if name not in doc:
            missing.append(prefix + name)
        elif isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel):
            missing += _documented_keys(field.annotation, doc[name], f"{prefix}{name}.")
    return missing


def test_documented_file_equals_the_model_defaults():
    doc = yaml.safe_load(DOCUMENTED.read_text(encoding="utf-8"))
    assert Settings.model_validate(doc) == Settings()
    assert _documented_keys(Settings, doc) == []
    hub = doc["mcp"]["connections"]["hub"]
    assert MCPConnection.model_validate(hub) == Settings().mcp.connections["hub"]


def test_defaults_come_from_the_models_not_a_file(monkeypatch):
    read = []
    real = config._read_layer
    monkeypatch.setattr(config, "_read_layer", lambda path: read.append(path) or real(path))
    for var in config._ENV_OVERRIDES:
        monkeypatch.delenv(var, raising=False)
    assert load_settings(use_user_file=False) == Settings()
    assert read == []
    assert config.defaults()["mcp"]["connections"]["hub"]["args"] == ["-m", "core.hub", "serve"]


def test_user_connections_add_to_the_default_hub(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text("mcp:\n  connections:\n    hub:\n      command: /opt/hub\n    up:\n      transport: sse\n"
                 "      url: http://127.0.0.1:1/sse\n")
    s = load_settings(f)
    assert s.mcp.connections["hub"].args == ["-m", "core.hub", "serve"]
    assert s.mcp.connections["hub"].command == "/opt/hub" and s.mcp.connections["up"].transport == "sse"


def test_an_undefined_variable_is_an_error_naming_key_and_line(tmp_path, monkeypatch):
    """Issue 17 point 7: ${UNDEFINED} used to become "" silently (one such config created a
    directory at the filesystem root); ${VAR:-fallback} and ${VAR:-} stay allowed."""
    monkeypatch.delenv("PP_SURELY_UNSET", raising=False)
    f = tmp_path / "s.yaml"
    f.write_text("paths:\n  home: ${PP_SURELY_UNSET}/data\n")
    with pytest.raises(ConfigError) as err:
        load_settings(f)
    assert str(err.value) == f"{f}:2: paths.home: ${{PP_SURELY_UNSET}} is not set (export it, or write ${{PP_SURELY_UNSET:-default}})"
    f.write_text("paths:\n  home: ${PP_SURELY_UNSET:-/tmp/pp}\nllm:\n  model: 'm${PP_SURELY_UNSET:-}'\n")
    s = load_settings(f)
    assert (s.paths.home, s.llm.model) == ("/tmp/pp", "m")


def test_a_yaml_alias_bomb_is_refused_quickly(tmp_path):
    """Issue 17 point 7: a 1 KB file that expands to billions of entries used 2.5 GB."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    f = tmp_path / "bomb.yaml"
    f.write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError, match="aliases expand to more than"):
        load_settings(f)


def test_a_settings_file_that_is_not_utf8_names_file_and_line(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_bytes(b"llm:\n  model: caf\xe9\n")
    with pytest.raises(ConfigError) as err:
        load_settings(f)
    assert str(err.value) == f"{f}:2: not UTF-8 text (byte 0xe9); save the settings file as UTF-8"


def test_a_self_referencing_settings_file_is_one_config_error(tmp_path):
    """Issue 17 point 6: a settings file whose alias refers to itself."""
    f = tmp_path / "self.yaml"
    f.write_text("agent: &a\n  nested: *a\n")
    with pytest.raises(ConfigError) as err:
        load_settings(f)
    assert str(err.value).startswith(str(f)) and "\n" not in str(err.value)


def test_the_cli_offers_every_llm_provider_but_auto():
    from typing import get_args

    from core.config import LLMSettings
    from paperpilot_tui.cli.common import LLM_CHOICES

    assert set(LLM_CHOICES) | {"auto"} == set(get_args(LLMSettings.model_fields["provider"].annotation))
