"""Retrieval through MCP: the client session, the RAG wrapper and result parsing."""
