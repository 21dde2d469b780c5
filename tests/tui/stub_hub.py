"""A knowledge-hub stand-in with a tiny in-memory corpus: speaks the agent's hub interface
(``search``, ``list_collections``, ``describe``, ``notices``) and can be told to fail, so Pilot tests
run the real graph, brain, checkpointer and stores without starting an MCP server process."""

from __future__ import annotations

from types import SimpleNamespace

from core.brains.base import BackendUnavailable
from core.state import RetrievedContext

CORPUS = [
    ("LoRA: Low-Rank Adaptation of Large Language Models", "LoRA > Abstract", 1,
     "LoRA freezes the pretrained model weights and injects trainable rank decomposition matrices into each "
     "Transformer layer, reducing trainable parameters by 10,000 times and GPU memory by 3 times. LoRA performs "
     "on-par with full fine-tuning in model quality and trains faster, with no additional inference latency."),
    ("QLoRA: Efficient Finetuning of Quantized LLMs", "QLoRA > Abstract", 1,
     "QLoRA reduces memory usage enough to finetune a 65B parameter model on a single 48GB GPU while preserving "
     "full 16-bit finetuning task performance, using 4-bit NormalFloat quantization, double quantization and "
     "paged optimizers. QLoRA is slower to train than LoRA because weights are dequantized at every step."),
    ("QLoRA: Efficient Finetuning of Quantized LLMs", "QLoRA > Results", 2,
     "Guanaco, finetuned with QLoRA, reaches 99.3% of the performance level of ChatGPT on the Vicuna benchmark; "
     "QLoRA accuracy matches 16-bit LoRA and full finetuning."),
]


class StubHub:
    describe = "hub (stub)"

    def __init__(self) -> None:
        self.notices: list[str] = []
        self.fail = False

    async def search(self, query: str, top_k: int = 5, collection: str | None = None) -> list[RetrievedContext]:
        if self.fail:
            raise BackendUnavailable("MCP server hub (stub) failed during query_knowledge_hub: connection closed")
        words = {w.lower().strip("?,.") for w in query.split() if len(w) > 2}
        scored = []
        for n, (title, crumb, page, text) in enumerate(CORPUS):
            score = sum(1 for w in words if w in text.lower() or w in title.lower())
            if score:
                scored.append((score, n, title, crumb, page, text))
        scored.sort(reverse=True)
        return [RetrievedContext(content=text, title=title, doc_id=title.split(":")[0].lower(),
                                 chunk_id=f"c{n}", breadcrumb=crumb, page=page, relevance_score=score / 10)
                for score, n, title, crumb, page, text in scored[:top_k]]

    async def list_collections(self, timeout: float | None = None):
        docs = [{"title": t} for t, *_ in CORPUS]
        return SimpleNamespace(structured={"collections": [{"name": "default", "documents": docs}]}, texts=[])
