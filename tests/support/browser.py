"""A real headless Chromium driven over the Chrome DevTools Protocol (websockets, no browser library).

``Browser.launch()`` starts the Debian ``chromium`` binary with a private profile and a DevTools
port, ``open(url)`` gives a :class:`Page` on that URL. textual-serve draws with xterm.js on a
canvas, so there is no DOM text to read: a script installed before the page's own scripts keeps a
reference to each xterm ``Terminal`` (caught when its ``_core`` is assigned) and
:meth:`Page.screen_text` reads the terminal's buffer, the text the browser is showing.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from websockets.sync.client import connect

BINARIES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

# Runs before textual.js: xterm's Terminal assigns this._core in its constructor; keep `this`.
CATCH_TERMINALS = """
window.__terminals = [];
Object.defineProperty(Object.prototype, '_core', {
  configurable: true,
  get() { return undefined; },
  set(value) {
    Object.defineProperty(this, '_core', {value, writable: true, configurable: true, enumerable: true});
    window.__terminals.push(this);
  },
});
"""

SCREEN_TEXT = """(() => {
  const ok = t => { try { return !!(t.buffer && t.buffer.active && t.rows); } catch (e) { return false; } };
  const t = window.__terminals.find(ok);
  if (!t) return '';
  const b = t.buffer.active, rows = [];
  for (let y = 0; y < t.rows; y++) { const l = b.getLine(b.viewportY + y); rows.push(l ? l.translateToString(true) : ''); }
  return rows.join('\\n');
})()"""


def find_chromium() -> str | None:
    """Path of an installed Chromium/Chrome binary, or None."""
    return next((p for p in map(shutil.which, BINARIES) if p), None)


class Page:
    """One page target over its own DevTools websocket."""

    def __init__(self, ws_url: str) -> None:
        self.ws = connect(ws_url, max_size=None, open_timeout=10, legacy=True)
        self.ids = itertools.count(1)

    def call(self, method: str, timeout: float = 15, **params) -> dict:
        """Send a command and return its result (events arriving meanwhile are dropped)."""
        n = next(self.ids)
        self.ws.send(json.dumps({"id": n, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            msg = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if msg.get("id") == n:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def screen_text(self) -> str:
        return self.evaluate(SCREEN_TEXT) or ""

    def wait_for_text(self, *needles: str, timeout: float) -> str:
        """Poll the terminal until every needle shows; the screen text, or AssertionError with the last one."""
        deadline, text = time.monotonic() + timeout, ""
        while time.monotonic() < deadline:
            text = self.screen_text()
            if all(n in text for n in needles):
                return text
            time.sleep(0.25)
        raise AssertionError(f"{needles!r} not all on the browser's screen after {timeout} s; it shows:\n{text}")

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        self.ws.close()


class Browser:
    """A headless Chromium process with a throwaway profile; ``close()`` ends it and removes the profile."""

    def __init__(self, proc: subprocess.Popen, port: int, profile: str) -> None:
        self.proc, self.port, self.profile = proc, port, profile

    @classmethod
    def launch(cls, binary: str, width: int = 1400, height: int = 900) -> Browser:
        profile = tempfile.mkdtemp(prefix="pp-chromium-")
        argv = [binary, "--headless=new", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
                f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"]
        if os.geteuid() == 0:  # Chromium refuses to run as root with its sandbox
            argv.insert(1, "--no-sandbox")
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        port_file, deadline = Path(profile) / "DevToolsActivePort", time.monotonic() + 30
        while not port_file.exists() or not port_file.read_text().strip():
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"chromium did not start: {proc.stderr.read()[-2000:]}")
            time.sleep(0.1)
        return cls(proc, int(port_file.read_text().split()[0]), profile)

    def open(self, url: str) -> Page:
        """A new page on ``url``, with the terminal catcher installed before any of its scripts."""
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}/json/new?about:blank", method="PUT")
        target = json.loads(urllib.request.urlopen(req, timeout=10).read())
        page = Page(target["webSocketDebuggerUrl"])
        page.call("Page.enable")
        page.call("Page.addScriptToEvaluateOnNewDocument", source=CATCH_TERMINALS)
        page.call("Page.navigate", url=url)
        return page

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def version(binary: str) -> str:
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30).stdout
    return re.sub(r"\s+", " ", out).strip()
