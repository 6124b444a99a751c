"""tart: instruction-conditioned cross-encoder (Asai et al., TART-full), from a local folder.

Each passage is paired with "{instruction} [SEP] {query}"; the score is the relevant label's
probability (two labels, TART's layout) or the single logit. The instruction is an option
(`instruction`, the CLI's --rerank-instruction); the default suits question answering.
The model is any folder AutoModelForSequenceClassification / CrossEncoder can read.
"""

from __future__ import annotations

from .cross_encoder import CrossEncoderReranker

DEFAULT_INSTRUCTION = "Retrieve a passage that answers this question"


class TartReranker(CrossEncoderReranker):
    name = "tart"

    def __init__(self, model: str = "", instruction: str | None = None, **options) -> None:
        super().__init__(model=model, **options)
        self.instruction = (instruction or DEFAULT_INSTRUCTION).strip()

    def query_text(self, query: str) -> str:
        return f"{self.instruction} [SEP] {query}"
