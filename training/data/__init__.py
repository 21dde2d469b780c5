"""Synthetic, seeded training data for the router, the critic and ReAct critical steps (JSONL committed here)."""
