"""The one list of heavy libraries the import-hygiene tests keep off the app's paths."""

# The training stack (the `train` extra): never on any path that does not train.
TRAIN_STACK = ("torch", "transformers", "sentence_transformers", "peft", "trl")
# Also kept off start-up (`--help`, importing the app): the agent's graph and the LLM client load
# when a turn needs them.
STARTUP_HEAVY = TRAIN_STACK + ("langgraph", "langchain_openai")
