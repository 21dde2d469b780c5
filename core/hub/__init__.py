"""The bundled knowledge hub: an MCP RAG server over SQLite (FTS5 + MiniLM vectors).

``python -m core.hub serve`` (or ``paperpilot hub serve``) runs it; ``core.hub.ingest`` fills it.
Nothing heavy is imported here: the server and the encoder load on demand.
"""
