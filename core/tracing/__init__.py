"""Turn traces: stored, listed, exported and replayed (SQLite, secrets scrubbed)."""
