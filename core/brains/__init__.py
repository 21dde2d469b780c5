"""The Brain protocol and its implementations: offline rules, an LLM, local models, composites."""
