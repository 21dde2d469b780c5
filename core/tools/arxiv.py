"""arXiv's public API: search (the web fallback's arxiv provider), metadata by id, and PDFs.

The API answers Atom XML (``GET {api_url}?search_query=…`` or ``?id_list=…``), parsed here with
the standard library; an API error arrives as an Atom entry whose id is ``…/api/errors#…`` and
becomes a :class:`~core.tools.web_search.WebSearchError` with its message. PDFs come from
``{pdf_url}/{id}``. Both URLs are settings (``arxiv.api_url``, ``arxiv.pdf_url``).

A PDF download is bounded twice, as any body from a server we do not control must be: it is
streamed to disk and stopped at ``limits.ingest_file_bytes`` (a declared larger Content-Length is
refused before the body is read), and the whole download has a total deadline,
``arxiv.download_deadline``, besides ``arxiv.timeout`` for each read, so a server that trickles a
byte every few seconds cannot hold ``ingest`` for longer than that.
"""

from __future__ import annotations

import asyncio
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import httpx

from core.memory.text import keywords
from core.tools.web_search import WebResult, WebSearchError, check_status, fetch

ATOM = "{http://www.w3.org/2005/Atom}"
# New-style ids (2106.09685, optionally v2) and old-style ones (hep-th/9901001, cs.LG/0101001).
ARXIV_ID = re.compile(r"^(?P<id>\d{4}\.\d{4,5}|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?P<version>v\d+)?$")
MAX_QUERY_TERMS = 8


def parse_id(text: str) -> tuple[str, str] | None:
    """``(id, version)`` of an arXiv id or abs/pdf URL (version "" when absent); None if it is none."""
    text = re.sub(r"^(?:arxiv:|https?://(?:export\.)?arxiv\.org/(?:abs|pdf)/)", "", text.strip(), flags=re.I)
    m = ARXIV_ID.match(text.removesuffix(".pdf"))
    return (m.group("id"), m.group("version") or "") if m else None


def search_query(question: str) -> str:
    """An arXiv ``search_query`` from a question: its content words, any of them (``OR``), so a
    long question still finds papers; the API ranks those matching more words first."""
    terms = [re.sub(r"[^\w.+-]", "", t) for t in keywords(question, limit=MAX_QUERY_TERMS)]
    return " OR ".join(f"all:{t}" for t in terms if t) or f"all:{question.strip()}"


def _text(node: ET.Element | None) -> str:
    return " ".join((node.text or "").split()) if node is not None else ""


def parse_feed(xml: bytes | str) -> list[WebResult]:
    """The entries of an arXiv Atom feed; an error entry or text that is not Atom raises."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise WebSearchError(f"arxiv: malformed reply (not Atom XML: {exc})") from None
    if root.tag != f"{ATOM}feed":
        raise WebSearchError("arxiv: malformed reply (not an Atom feed)")
    out: list[WebResult] = []
    for entry in root.iter(f"{ATOM}entry"):
        entry_id = _text(entry.find(f"{ATOM}id"))
        if "/api/errors" in entry_id:
            raise WebSearchError(f"arxiv: {_text(entry.find(f'{ATOM}summary')) or 'the API reported an error'}")
        parsed = parse_id(entry_id)
        if parsed is None:
            continue
        abs_url = next((link.get("href", "") for link in entry.iter(f"{ATOM}link")
                        if link.get("rel") == "alternate" and link.get("href")), entry_id)
        out.append(WebResult(
            title=_text(entry.find(f"{ATOM}title")), url=abs_url, content=_text(entry.find(f"{ATOM}summary")),
            authors=[_text(a.find(f"{ATOM}name")) for a in entry.iter(f"{ATOM}author")],
            published=_text(entry.find(f"{ATOM}published")), ref=parsed[0]))
    return out


class ArxivClient:
    """Search, metadata and PDFs from arXiv (or a server that answers as it does)."""

    name = "arxiv"

    def __init__(self, api_url: str, pdf_url: str, timeout: float = 60.0, deadline: float = 300.0) -> None:
        self.api_url, self.pdf_url, self.timeout, self.deadline = api_url, pdf_url.rstrip("/"), timeout, deadline

    def search(self, query: str, max_results: int) -> list[WebResult]:
        response = fetch(self.name, "GET", self.api_url, timeout=self.timeout,
                         params={"search_query": search_query(query), "start": 0, "max_results": max_results,
                                 "sortBy": "relevance"}, accept=(400,))
        return parse_feed(response.content)[:max_results]

    def papers(self, ids: list[str]) -> dict[str, WebResult]:
        """Title, authors, date and abs URL of each id arXiv knows (one request for all of them)."""
        response = fetch(self.name, "GET", self.api_url, timeout=self.timeout,
                         params={"id_list": ",".join(ids), "max_results": len(ids)}, accept=(400,))
        return {r.ref: r for r in parse_feed(response.content)}

    def download_pdf(self, arxiv_id: str, dest: Path, max_bytes: int) -> Path:
        """Fetch ``{pdf_url}/{id}`` into ``dest`` (written whole or not at all), within
        ``max_bytes`` and the total deadline; either one passed is a one-line :class:`WebSearchError`.
        Runs its own event loop (cancelling a blocked read is what bounds the total time)."""
        url = f"{self.pdf_url}/{arxiv_id}"
        dest.parent.mkdir(parents=True, exist_ok=True)
        part = dest.with_suffix(".part")
        try:
            asyncio.run(asyncio.wait_for(self._stream(url, part, max_bytes), self.deadline))
        except TimeoutError:
            part.unlink(missing_ok=True)
            raise WebSearchError(f"arxiv: {url} took longer than arxiv.download_deadline "
                                 f"({self.deadline:g} s); download stopped") from None
        except BaseException:
            part.unlink(missing_ok=True)
            raise
        part.replace(dest)
        return dest

    async def _stream(self, url: str, part: Path, max_bytes: int) -> None:
        try:
            async with httpx.AsyncClient(timeout=self.timeout, follow_redirects=True) as client:
                async with client.stream("GET", url) as response:
                    check_status(self.name, response)
                    declared = response.headers.get("Content-Length", "")
                    if declared.isdigit() and int(declared) > max_bytes:
                        raise WebSearchError(f"arxiv: the PDF is {int(declared):,} bytes, over "
                                             f"limits.ingest_file_bytes ({max_bytes:,}); not downloaded")
                    size, head = 0, b""
                    with part.open("wb") as out:
                        async for block in response.aiter_bytes():
                            size += len(block)
                            if size > max_bytes:
                                raise WebSearchError(f"arxiv: the PDF is over limits.ingest_file_bytes "
                                                     f"({max_bytes:,} bytes); download stopped")
                            if len(head) < 5:
                                head += block[:5]
                                if len(head) >= 5 and not head.startswith(b"%PDF-"):
                                    raise WebSearchError(f"arxiv: {url} did not answer a PDF")
                            out.write(block)
                    if not head.startswith(b"%PDF-"):
                        raise WebSearchError(f"arxiv: {url} did not answer a PDF")
        except httpx.TimeoutException:
            raise WebSearchError(f"arxiv: no reply within {self.timeout:g} s") from None
        except httpx.HTTPError as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise WebSearchError(f"arxiv: unreachable ({reason})") from None


def fetch_papers(refs: list[str], client: ArxivClient, folder: Path,
                 max_bytes: int) -> tuple[list[tuple[Path, dict]], list[tuple[str, str]]]:
    """Download each ``arxiv:ID``'s PDF into ``folder`` with its metadata (title, authors, year,
    url), for :meth:`core.hub.ingest.Ingestor.ingest`'s ``meta``. Returns (pdf path, metadata)
    pairs and (ref, one-line reason) for each that failed; one failing PDF never stops the rest."""
    got: list[tuple[Path, dict]] = []
    failed: list[tuple[str, str]] = []
    wanted: dict[str, tuple[str, str]] = {}
    for ref in refs:
        parsed = parse_id(ref)
        if parsed is None:
            failed.append((ref, "not an arXiv id (write arxiv:2106.09685)"))
        else:
            wanted[ref] = parsed
    if not wanted:
        return got, failed
    try:
        known = client.papers(list(dict.fromkeys(aid for aid, _ in wanted.values())))
    except WebSearchError as exc:
        return got, failed + [(ref, str(exc)) for ref in wanted]
    for ref, (aid, version) in wanted.items():
        paper = known.get(aid)
        if paper is None:
            failed.append((ref, "arxiv: no such paper"))
            continue
        try:
            path = client.download_pdf(aid + version, folder / f"{aid.replace('/', '_')}{version}.pdf", max_bytes)
        except (WebSearchError, OSError) as exc:
            failed.append((ref, str(exc) if isinstance(exc, WebSearchError) else f"cannot save the PDF: {exc}"))
            continue
        year = int(paper.published[:4]) if paper.published[:4].isdigit() else None
        got.append((path, {"title": paper.title, "authors": paper.authors, "year": year, "url": paper.url,
                          "arxiv_id": aid, "source_kind": "arxiv"}))
    return got, failed
