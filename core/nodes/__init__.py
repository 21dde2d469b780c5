"""Main-graph nodes, one per file; shared plumbing in :mod:`core.nodes.common`."""
