"""Prompts for the LLM brain, one module per judgement family.

Every builder returns a list of LangChain messages (system + user). Rules the design requires are
enforced here and tested: the conversation history appears only in router / slot-filling prompts
(when there is history) and in follow-up synthesis; prior knowledge from long-term memory appears
only in synthesis prompts, as background that is never cited.
"""
