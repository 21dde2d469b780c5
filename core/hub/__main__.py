"""``python -m core.hub serve [--transport stdio|http] [--port N] [--host H] [--rerank SPEC]``, and
``python -m core.hub daemon`` (the warm hub, see :mod:`core.hub.daemon`).

Every process started here has ONNX Runtime's telemetry off (:func:`core.onnx_runtime.disable_telemetry`).
Over stdio nothing but protocol reaches stdout and stderr stays quiet: progress bars and library
chatter are switched off before anything heavy is imported, and logs go to ``hub.log`` in the
data dir.
"""

from __future__ import annotations

import argparse
import os
import sys


def quiet_environment() -> None:
    """Silence tqdm / transformers / tokenizers noise; never reach for a model hub or send telemetry."""
    from core.onnx_runtime import disable_telemetry

    disable_telemetry()
    for key, value in {"TQDM_DISABLE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                       "TRANSFORMERS_VERBOSITY": "error", "TOKENIZERS_PARALLELISM": "false",
                       "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1"}.items():
        os.environ.setdefault(key, value)


def setup_logging(data_dir) -> None:
    import logging
    import warnings

    from core.paths import private_file
    from core.text_safety import SafeFormatter  # hub.log quotes file names and document text

    handler = logging.FileHandler(private_file(data_dir / "hub.log"), encoding="utf-8")  # 0600: it quotes queries
    handler.setFormatter(SafeFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    for noisy in ("mcp", "httpx", "sentence_transformers", "transformers", "uvicorn.access"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    logging.captureWarnings(True)
    warnings.simplefilter("ignore")


def serve(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="paperpilot hub serve", description="Run the knowledge hub MCP server.")
    add_serve_args(p)
    return run_serve(p.parse_args(argv))


def add_serve_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio",
                   help="stdio (default, for the agent) or streamable HTTP")
    p.add_argument("--host", default="127.0.0.1",
                   help="HTTP bind address (default 127.0.0.1; any other needs the token of `hub token`)")
    p.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    p.add_argument("--rerank", default=None, metavar="SPEC",
                   help="rerank step: none (default) or module:callable(query, hits) -> hits")
    p.add_argument("--db", default=None, metavar="FILE", help="hub database (default: paths.hub_db in the data dir)")


def run_serve(args: argparse.Namespace) -> int:
    quiet_environment()

    from core.config import ConfigError, load_settings

    try:
        settings = load_settings(getattr(args, "config", None))
    except ConfigError as exc:
        print(f"paperpilot hub: config error: {exc}", file=sys.stderr)
        return 2
    from core.hub import ocr

    ocr.configure(settings.hub)
    verifier = None
    if args.transport == "http":
        from core.hub import auth

        try:
            verifier = auth.verifier_for(args.host, settings.hub.require_token)
        except (OSError, auth.TokenFileError) as exc:
            print(f"paperpilot hub: {exc}", file=sys.stderr)
            return 1
    from core.errors import StoreUnreadable
    from core.hub.pg import BackendError
    from core.hub.server import build_server

    try:
        hub = open_hub(settings, args.db, args.rerank)
    except BackendError as exc:
        print(f"paperpilot hub: {exc}", file=sys.stderr)
        return 2
    except StoreUnreadable as exc:  # a damaged hub.sqlite3, a directory as paths.hub_db: one line
        print(f"paperpilot hub: {exc}", file=sys.stderr)
        return 1
    hub.start(background=True)
    server = build_server(hub, host=args.host, port=args.port, request_bytes=settings.limits.request_bytes,
                          token_verifier=verifier)
    try:
        if args.transport == "http":
            serve_http(server, args.host, args.port, settings.limits.hub_connections, verifier)
        else:
            server.run("stdio")
    except KeyboardInterrupt:
        pass
    if args.transport != "http":
        # The client closed stdin: the SDK has closed the stdout it wrapped, so nothing may write
        # or flush it again (the CLI would, and fail with "I/O operation on closed file").
        exit_now(0)
    return 0


def open_hub(settings, db: str | None = None, rerank: str | None = None):
    """The hub the settings name (the SQLite file ``db`` or ``paths.hub_db``, or PostgreSQL), with
    ``hub.log`` beside the file. Raises BackendError, or StoreUnreadable naming a file that is
    damaged or not ours to use (:func:`core.paths.private_file`)."""
    from pathlib import Path

    from core.hub.pg import resolve_dsn
    from core.hub.service import Hub
    from core.paths import private_file

    dsn = resolve_dsn(settings)
    path = Path(db).expanduser() if db else settings.paths.resolve(settings.paths.hub_db)
    restored = False
    if dsn is None:
        from core.hub import bundled_cache

        restored = bundled_cache.restore(path)  # a new data dir: the per-user index of the bundled notes
        path = private_file(path, "--db" if db else "paths.hub_db")
    setup_logging(path.parent)
    hub = Hub(path, rerank=rerank, dsn=dsn)
    hub.restored = hub.restored or restored
    return hub


def serve_http(server, host: str, port: int, connections: int, verifier) -> None:
    """Serve ``server`` over streamable HTTP with at most ``connections`` requests in flight."""
    import uvicorn

    from core.hub import auth

    app = auth.ConnectionLimit(server.streamable_http_app(), connections)
    needs = (f"every request needs the bearer token in {verifier.path} (paperpilot hub token prints it)"
             if verifier else "no token required (hub.require_token: auto on loopback)")
    print(f"paperpilot hub: serving {auth.http_url(host, port)}; {needs}", file=sys.stderr, flush=True)
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on",
                                  timeout_graceful_shutdown=2)).run()


def main(argv: list[str] | None = None) -> int:
    from core.onnx_runtime import disable_telemetry

    disable_telemetry()  # the stdio hub, the HTTP hub and the daemon, before onnxruntime loads
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "daemon":  # what `paperpilot hub start` runs (see core.hub.daemon)
        from core.hub.daemon import run_daemon

        return run_daemon(argv[1:])
    if not argv or argv[0] != "serve":
        print("usage: python -m core.hub serve [--transport stdio|http] [--port N] [--host H]", file=sys.stderr)
        return 2
    return serve(argv[1:])


def exit_now(code: int) -> None:
    """End the server process at once, once its work is done (stdin closed, or interrupted).

    Every index write is a committed SQLite transaction by then, so there is nothing to tear
    down; an interpreter that loaded torch otherwise spends about 2 s in native finalizers, which
    is exactly the MCP client's grace period before it kills the process (and the app's quit).
    """
    import logging

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":
    exit_now(main())
