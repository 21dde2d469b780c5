"""Sources from the web fallback show their URLs: a link in the app's sources pane, and
``title (url)`` in ``paperpilot ask``'s sources table."""

from __future__ import annotations

from rich.style import Style

from core.types import Source, TurnResult
from paperpilot_tui.cli.ask_render import render_result
from paperpilot_tui.widgets.sources import source_label

URL = "http://arxiv.org/abs/2312.00752v2"
WEB = Source(index=1, chunk_id="web:arxiv:2312.00752", doc_id="arxiv:2312.00752", title="Mamba", url=URL,
             breadcrumb="arxiv · Albert Gu, Tri Dao · 2023", text="Mamba integrates selective SSMs.")


def _links(text) -> list[str]:
    return [span.style.link for span in text.spans if isinstance(span.style, Style) and span.style.link]


def test_a_web_source_is_a_link_in_the_sources_pane():
    label = source_label(WEB)
    assert URL in label.plain and _links(label) == [URL]
    local = source_label(Source(index=2, chunk_id="lora_0003", title="LoRA", breadcrumb="LoRA > Method"))
    assert _links(local) == [] and "Method" in local.plain


def test_ask_prints_source_and_url(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    result = TurnResult(question="What is Mamba?", session_id="s", trace_id="t", intent=None, strategy="simple",
                        final_answer="Mamba integrates selective SSMs [1].", sources=[WEB], critic=None, retry_count=0,
                        llm_calls=0, tokens={}, timings_ms={"total": 1.0}, used_web_fallback=True,
                        web_query="What is Mamba?", web_result_count=3)
    render_result(result)
    out = capsys.readouterr().out
    assert f"Mamba ({URL})" in out
    assert "web fallback:" in out and "3 result(s)" in out
