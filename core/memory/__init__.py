"""Long-term facts, sessions and conversation history."""
