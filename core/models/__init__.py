"""Local models: LoRA router, DPO critic and local chat model (heavy imports stay inside functions)."""
