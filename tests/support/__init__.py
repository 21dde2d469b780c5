"""Test helpers shared across the suite (the scripted chat model at the cloud-LLM edge)."""
