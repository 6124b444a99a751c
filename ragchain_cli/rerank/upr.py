"""upr: Unsupervised Passage Reranking (Sachan et al., 2022) with the local GGUF model.

score(passage) = mean over the query's tokens of log p(query token | prompt(passage), earlier
query tokens), read from the model's logits through llama.cpp. The default prompt puts the
instruction first ("Please write a question based on this passage.\nPassage: {passage}\n
Question:") so the part before the passage is shared by every passage of every query: it is
evaluated once per process and its KV state reused. prompt="original" gives the paper's order
("Passage: {passage}. Please write a question based on this passage.\nQuestion:"); any
template with one {passage} works. Passages are cut to `passage_tokens` model tokens (default
128), which bounds the cost per passage; see bench/RESULTS.md for cost against quality.
"""

from __future__ import annotations

from ..config import DEFAULTS
from ..errors import UsageError
from ..types import Hit
from ._common import passage_text, reranked

INSTRUCTION = "Please write a question based on this passage."
PROMPTS = {
    "instruction-first": INSTRUCTION + "\nPassage: {passage}\nQuestion:",
    "original": "Passage: {passage}. " + INSTRUCTION + "\nQuestion:",
}


def split_template(template: str) -> tuple[str, str]:
    """(text before the passage, text after it); the part after must not be empty."""
    template = PROMPTS.get(template, template)
    if template.count("{passage}") != 1:
        raise UsageError("a upr prompt needs exactly one {passage}", f"or use one of: {', '.join(PROMPTS)}")
    before, after = template.split("{passage}")
    if not after.strip():
        raise UsageError("a upr prompt needs text after {passage} (the question follows it)")
    return before, after


class UPRReranker:
    name = "upr"

    def __init__(self, llm="", n_ctx: int = DEFAULTS.n_ctx, passage_tokens: int = 128,
                 prompt: str = "instruction-first", **_options) -> None:
        from ..llm import as_ref, open_llm

        if passage_tokens < 8:
            raise UsageError(f"passage_tokens must be at least 8, got {passage_tokens}")
        self.before, self.after = split_template(prompt)
        if as_ref(llm).served:  # a chat server gives no log-probabilities of given text: refused before any search
            from ..llm.served import no_logprobs

            raise no_logprobs(as_ref(llm).source)
        self.llm = open_llm(llm, n_ctx)
        self.passage_tokens = passage_tokens

    def rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
        if not hits:
            return []
        space = " " if self.before and not self.before[-1].isspace() else ""
        bodies = [space + passage_text(h).strip() for h in hits]
        scores = self.llm.score(self.before, bodies, self.after, " " + query.strip(), body_tokens=self.passage_tokens)
        return reranked(hits, scores)
