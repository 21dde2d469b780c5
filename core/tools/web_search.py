"""Web search beyond the knowledge base (stage K): Tavily, a self-hosted SearXNG, or arXiv.

Each provider turns a query into :class:`WebResult` items (title, URL, text); the
``web_fallback`` node makes them contexts. Every failure (refused connection, timeout, 401, 429,
a reply that is not the provider's format) is one :class:`WebSearchError` line that names the
provider; nothing here retries: the turn keeps its local answer instead. Calls are synchronous
(httpx), so ``paperpilot ingest`` uses the same client and the node runs them in a thread.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

import httpx
from pydantic import BaseModel, Field

TAVILY_URL = "https://api.tavily.com"


class WebResult(BaseModel):
    """One search hit: where it is and what it says."""

    title: str
    url: str
    content: str
    score: float = 0.0
    authors: list[str] = Field(default_factory=list)
    published: str = ""  # ISO date, when the provider gives one
    ref: str = ""  # the provider's stable id (arXiv id), for chunk ids


class WebSearchError(Exception):
    """A search that failed; ``str()`` is one line naming the provider."""


class WebSearchClient(Protocol):
    name: str

    def search(self, query: str, max_results: int) -> list[WebResult]: ...


def fetch(what: str, method: str, url: str, *, timeout: float, accept: tuple[int, ...] = (),
          **kwargs: Any) -> httpx.Response:
    """One HTTP request; any failure becomes a one-line :class:`WebSearchError` prefixed ``what``
    (statuses in ``accept`` are returned: arXiv explains a 400 in its Atom body)."""
    try:
        with httpx.Client(timeout=timeout, follow_redirects=True) as client:
            response = client.request(method, url, **kwargs)
    except httpx.TimeoutException:
        raise WebSearchError(f"{what}: no reply within {timeout:g} s") from None
    except httpx.HTTPError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise WebSearchError(f"{what}: unreachable ({reason})") from None
    return check_status(what, response, accept)


def check_status(what: str, response: httpx.Response, accept: tuple[int, ...] = ()) -> httpx.Response:
    """``response`` when its status is a success or in ``accept``, else the one-line
    :class:`WebSearchError` for it (also for streamed responses, before their body is read)."""
    code = response.status_code
    if code in accept:
        return response
    if code in (401, 403):
        hint = "" if what == "arxiv" else "; check agent.web_search_fallback.api_key"
        raise WebSearchError(f"{what}: HTTP {code} {'unauthorized' if code == 401 else 'forbidden'}{hint}")
    if code == 429:
        after = response.headers.get("Retry-After", "").strip()
        wait = f"; the provider asks to wait {after}{' s' if after.isdigit() else ''}" if after else ""
        raise WebSearchError(f"{what}: rate limited (HTTP 429){wait}")
    if code >= 400:
        raise WebSearchError(f"{what}: HTTP {code} {response.reason_phrase}".rstrip())
    return response


def json_body(what: str, response: httpx.Response) -> dict:
    try:
        data = json.loads(response.content)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise WebSearchError(f"{what}: malformed reply (not JSON: {str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise WebSearchError(f"{what}: malformed reply (no results list)")
    return data


def _results(items: list, max_results: int) -> list[WebResult]:
    out: list[WebResult] = []
    for item in items:
        if not isinstance(item, dict) or not item.get("url") or not (item.get("content") or item.get("title")):
            continue
        score = item.get("score")
        out.append(WebResult(title=str(item.get("title") or item["url"]), url=str(item["url"]),
                             content=" ".join(str(item.get("content") or item.get("title")).split()),
                             score=float(score) if isinstance(score, int | float) else 0.0,
                             published=str(item.get("publishedDate") or item.get("published_date") or "")))
        if len(out) >= max_results:
            break
    return out


class TavilyClient:
    """Tavily's search API: ``POST {url}/search`` with a JSON body and a bearer key."""

    name = "tavily"

    def __init__(self, api_key: str, url: str | None = None, timeout: float = 15.0) -> None:
        self.api_key, self.url, self.timeout = api_key, (url or TAVILY_URL).rstrip("/"), timeout

    def search(self, query: str, max_results: int) -> list[WebResult]:
        response = fetch(self.name, "POST", f"{self.url}/search", timeout=self.timeout,
                         headers={"Authorization": f"Bearer {self.api_key}"},
                         json={"query": query, "max_results": max_results, "search_depth": "basic"})
        return _results(json_body(self.name, response)["results"], max_results)


class SearxngClient:
    """A SearXNG instance's JSON API: ``GET {url}/search?q=…&format=json`` (the instance must
    allow the json format in its ``search.formats`` setting)."""

    name = "searxng"

    def __init__(self, url: str, timeout: float = 15.0) -> None:
        self.url, self.timeout = url.rstrip("/"), timeout

    def search(self, query: str, max_results: int) -> list[WebResult]:
        response = fetch(self.name, "GET", f"{self.url}/search", timeout=self.timeout,
                         params={"q": query, "format": "json"})
        return _results(json_body(self.name, response)["results"], max_results)


def create_web_search_client(settings: Any) -> WebSearchClient | None:
    """The configured client, or None: fallback disabled, or tavily without a key, or searxng
    without a URL (arXiv needs neither: its public API is the default)."""
    web = settings.agent.web_search_fallback
    if not web.enabled:
        return None
    if web.provider == "arxiv":
        from core.tools.arxiv import ArxivClient

        return ArxivClient(web.url or settings.arxiv.api_url, settings.arxiv.pdf_url, timeout=web.timeout)
    if web.provider == "tavily":
        key = web.api_key.get_secret_value() if web.api_key else ""
        return TavilyClient(key, web.url, web.timeout) if key else None
    return SearxngClient(web.url, web.timeout) if web.url else None
