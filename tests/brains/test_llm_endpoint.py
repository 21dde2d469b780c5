"""The LLM brain through a real ChatOpenAI: unreachable endpoints, HTTP errors, and a tiny local
OpenAI-compatible server (function calling + server-sent-event streaming) served in a thread."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from core.brains.base import BackendUnavailable, SynthesisRequest
from core.brains.llm.brain import LLMBrain
from core.brains.llm.chat import build_chat_model
from core.config import ConfigError, Settings
from core.events import LLMCall
from core.state import Intent, RetrievedContext
from core.telemetry import capture
from tests.support.fake_openai import FakeServer

INTENT = Intent(type="factual", confidence=1.0, entities=["LoRA"])
CTX = [RetrievedContext(content="LoRA uses rank 8 by default in our notes.", chunk_id="c1", title="LoRA")]


def settings_for(base_url: str, **llm) -> Settings:
    return Settings.model_validate({"llm": {"provider": "openai", "base_url": base_url, "api_key": "sk-test",
                                            "retries": 0, "timeout": 5, **llm}})


def llm_brain(base_url: str, **llm) -> LLMBrain:
    settings = settings_for(base_url, **llm)
    return LLMBrain(build_chat_model(settings), settings)


async def test_refused_connection_is_one_line_backend_unavailable():
    b = llm_brain("http://127.0.0.1:9/v1")
    with pytest.raises(BackendUnavailable) as err:
        await b.classify("What is LoRA?", [])
    msg = str(err.value)
    assert msg.startswith("LLM endpoint http://127.0.0.1:9/v1 unreachable: connection failed")
    assert "\n" not in msg and "Traceback" not in msg
    with pytest.raises(BackendUnavailable):
        await b.synthesize(SynthesisRequest(kind="simple", question="q", intent=INTENT, contexts=CTX))


def test_openai_provider_needs_a_key_or_a_base_url(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="llm.api_key"):
        build_chat_model(Settings.model_validate({"llm": {"provider": "openai"}}))
    local = build_chat_model(Settings.model_validate({"llm": {"provider": "openai", "base_url": "http://127.0.0.1:11434/v1",
                                                              "timeout": 7, "retries": 1}}))
    # the client never re-sends on its own: core.brains.llm.resend decides (never after a timeout)
    assert local.openai_api_base == "http://127.0.0.1:11434/v1" and local.max_retries == 0
    assert local.request_timeout == 7


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServer() as s:
        yield s


async def test_structured_output_uses_function_calling_against_real_client(server):
    events: list = []
    with capture(events.append):
        out = await llm_brain(server.url, model="local-model").classify("Compare LoRA and QLoRA", [])
    assert (out.type, out.confidence, out.router) == ("comparative", 0.77, "llm:local-model")
    body = server.requests[0]
    assert body["max_tokens"] == body["max_completion_tokens"] == 1024  # both, for older servers
    assert body["model"] == "local-model" and body["tools"][0]["function"]["name"] == "IntentClassification"
    assert body["tool_choice"]["function"]["name"] == "IntentClassification"
    call = next(e for e in events if isinstance(e, LLMCall))
    assert (call.prompt_tokens, call.completion_tokens) == (111, 22)


async def test_out_of_range_tool_arguments_are_coerced(server):
    server.tool_args = {"type": "Multi-hop", "confidence": 90}
    out = await llm_brain(server.url).classify("How does QLoRA build on LoRA?", [])
    assert (out.type, out.confidence) == ("multi_hop", 0.9) and len(server.requests) == 1


async def test_streamed_synthesis_from_sse(server):
    tokens: list[str] = []
    answer = await llm_brain(server.url).synthesize(
        SynthesisRequest(kind="simple", question="What rank?", intent=INTENT, contexts=CTX), tokens.append)
    assert answer == "LoRA uses rank 8 [1]." and len(tokens) >= 4 and server.requests[0]["stream"] is True


@pytest.mark.parametrize("status, needle", [(401, "unreachable: authentication failed (401)"),
                                            (404, "unreachable: not found (404)"), (429, "rate limited"),
                                            (503, "failed: server error 503 (reachable; status 503)"), (402, "failed: HTTP 402 (status 402)")])
async def test_http_errors_map_to_one_line(server, status, needle):
    server.status = status
    with pytest.raises(BackendUnavailable) as err:
        await llm_brain(server.url).classify("What is LoRA?", [])
    assert needle in str(err.value) and str(err.value).startswith(f"LLM endpoint {server.url} ")
    assert "\n" not in str(err.value)


async def test_rejected_request_retries_structured_without_tools_then_reports_text_failures(server):
    server.status = 400
    b = llm_brain(server.url)
    with pytest.raises(BackendUnavailable, match=r"rejected the request \(HTTP 400\): status 400"):
        await b.classify("What is LoRA?", [])
    assert "tools" in server.requests[0] and "tools" not in server.requests[1]  # second try: JSON in text
    assert b.caller.tools_ok is True  # not blamed on tools: the plain request failed too


async def test_a_busy_server_is_slow_not_unreachable_and_gets_no_second_request(server):
    server.delay = 1.0
    with pytest.raises(BackendUnavailable) as err:
        await llm_brain(server.url, timeout=0.3, retries=2).classify("What is LoRA?", [])
    msg = str(err.value)
    assert msg.startswith(f"LLM endpoint {server.url} is slow: no reply within 0.3 s (llm.timeout)")
    assert "unreachable" not in msg and "\n" not in msg
    assert len(server.requests) == 1  # the long prompt was not queued a second time


async def test_a_connection_accepted_with_no_reply_is_busy_not_unreachable():
    """An open TCP connection with no reply (a single-request server computing, which cannot answer
    the probe either) is "busy"; "unreachable" is kept for no connection at all."""
    import socket

    silent = socket.socket()  # accepts connections (backlog) but never answers anything
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
    try:
        with pytest.raises(BackendUnavailable) as err:
            await llm_brain(url, timeout=0.3, retries=2).classify("What is LoRA?", [])
    finally:
        silent.close()
    msg = str(err.value)
    assert msg.startswith(f"LLM endpoint {url} is busy: it accepted the connection but sent no reply within 0.3 s")
    assert "unreachable" not in msg and "\n" not in msg


async def test_a_reply_that_is_not_json_is_one_line_naming_it(server):
    server.raw_body = b"<html><body>502 Bad Gateway</body></html>"
    with pytest.raises(BackendUnavailable) as err:
        await llm_brain(server.url).classify("What is LoRA?", [])
    msg = str(err.value)
    assert msg.startswith(f"LLM endpoint {server.url} failed: the reply was not JSON (") and "Bad Gateway" in msg
    assert "\n" not in msg


def synth(b: LLMBrain, tokens: list[str]):
    return b.synthesize(SynthesisRequest(kind="simple", question="What rank?", intent=INTENT, contexts=CTX),
                        tokens.append)


async def test_a_first_token_later_than_the_librarys_own_wall_still_arrives_within_llm_timeout(server, monkeypatch):
    """langchain-openai cuts a stream whose next chunk takes longer than its stream_chunk_timeout
    (120 s by default; shrunk here through its environment variable): llm.timeout must govern."""
    monkeypatch.setenv("LANGCHAIN_OPENAI_STREAM_CHUNK_TIMEOUT_S", "0.3")
    server.first_chunk_delay = 1.0
    tokens: list[str] = []
    assert await synth(llm_brain(server.url, timeout=10), tokens) == "LoRA uses rank 8 [1]."
    assert tokens


async def test_no_first_token_within_llm_timeout_says_so(server, caplog):
    server.first_chunk_delay = 2.0
    with pytest.raises(BackendUnavailable) as err:
        await synth(llm_brain(server.url, timeout=0.5), [])
    assert str(err.value).startswith(f"LLM endpoint {server.url} is slow: no first token within 0.5 s (llm.timeout)")
    assert not [r for r in caplog.records if "stream_chunk_timeout" in r.getMessage()]  # no stray library line


async def test_a_stream_that_stalls_says_no_tokens_for_n_seconds(server):
    server.stall_after, server.stall = 2, 2.0
    tokens: list[str] = []
    with pytest.raises(BackendUnavailable) as err:
        await synth(llm_brain(server.url, timeout=0.5), tokens)
    assert "is slow: no tokens for 0.5 s (after " in str(err.value) and tokens  # some arrived first


async def test_transient_errors_are_sent_again_after_a_backoff(server):
    server.fail_first = [503, 429]
    started = time.perf_counter()
    out = await llm_brain(server.url, retries=2).classify("Compare LoRA and QLoRA", [])
    assert out.type == "comparative" and len(server.requests) == 3
    assert time.perf_counter() - started >= 0.5 + 0.3  # 0.5 s back-off, then the server's Retry-After
    server.fail_first = [503]
    with pytest.raises(BackendUnavailable, match="server error"):  # retries: 0 means one request
        await llm_brain(server.url, retries=0).classify("Compare LoRA and QLoRA", [])


async def test_evidence_is_cut_to_fit_the_context_window_and_the_trace_says_so(server):
    contexts = [RetrievedContext(content=f"LoRA note {i}: " + "rank adapters freeze weights. " * 60,
                                 chunk_id=f"c{i}", title="LoRA") for i in range(6)]
    events: list = []
    with capture(events.append):
        await llm_brain(server.url, context_tokens=2500, max_tokens=500).synthesize(
            SynthesisRequest(kind="simple", question="What rank does LoRA use?", intent=INTENT, contexts=contexts))
    sent = json.dumps(server.requests[0]["messages"])
    assert "LoRA note 0" in sent and "LoRA note 5" not in sent  # lowest-ranked chunks go first
    assert len(sent) // 4 <= 2500
    notes = [e.message for e in events if e.kind == "notice"]
    assert any("synthesis prompt cut to fit llm.context_tokens=2500" in n for n in notes)


async def test_a_server_that_read_less_of_the_prompt_than_was_sent_is_reported(server):
    # the fake server reports 111 prompt tokens whatever it is sent: a long prompt was cut there
    contexts = [RetrievedContext(content="LoRA freezes the weights. " * 200, chunk_id="c1", title="LoRA")]
    events: list = []
    with capture(events.append):
        await llm_brain(server.url).critique("What is LoRA?", INTENT, contexts, "LoRA freezes weights [1].", [])
    assert any("the server read 111 tokens of a prompt of about" in e.message
               for e in events if e.kind == "notice")


@pytest.mark.parametrize("reply, problem", [
    ("[1] [2] [3] [4] [5] [6]", "only citation markers"),
    ("You answer questions about research papers using only the numbered evidence below and you cite "
     "every claim [1].", "repeats its instructions"),
    ("[1] LoRA\nLoRA uses rank 8 by default in our notes.", "copies its evidence block"),
])
async def test_a_draft_that_is_not_an_answer_is_replaced_by_the_offline_draft(server, reply, problem):
    """A weak model's reply that is only markers, or its own instructions echoed, is never the answer:
    the offline brain's draft is, and the trace says why."""
    from core.brains.llm.brain import synthesis_messages

    system = next(str(m.content) for m in synthesis_messages(
        SynthesisRequest(kind="simple", question="What rank?", intent=INTENT, contexts=CTX)) if m.type == "system")
    server.text = reply if problem != "repeats its instructions" else " ".join(system.split()[:14]) + " [1]."
    events: list = []
    with capture(events.append):
        answer = await synth(llm_brain(server.url), [])
    assert "LoRA uses rank 8" in answer and answer != server.text
    notes = [e.message for e in events if type(e).__name__ == "Notice"]
    assert any(problem in n and "used the offline brain" in n for n in notes), notes


async def test_a_5xx_before_the_stream_starts_is_sent_again_under_llm_retries(server):
    server.fail_first = [503]
    tokens: list[str] = []
    assert await synth(llm_brain(server.url, retries=1), tokens) == "LoRA uses rank 8 [1]."
    assert len(server.requests) == 2 and all(r["stream"] for r in server.requests) and tokens
