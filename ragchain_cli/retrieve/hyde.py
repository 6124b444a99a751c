"""HyDE (Gao et al. 2022): the LLM writes hypothetical passages; search with their mean vector.

The search vector is mean(query embedding, passage embeddings), re-normalised, as in the paper
(the query itself counts as one of the N + 1 vectors), searched in the index's own LanceDB
table with the index's embedding model. The prompt template is per domain (setting
`hyde_template`, with `{query}` where the query goes); `hyde_passages` passages are written
per query (1 by default: each costs seconds on a CPU), at temperature 0 for one passage and
0.7 (the paper's) for several so that they differ. Off by default: with SmolLM2-135M and
Qwen2.5-0.5B it did not beat dense on SciFact at 3-14 s per query (bench/query_ext_bench.py,
removed in 29a3e57; docs/history/RESULTS-history.md has the figures, "Query-side extensions").
"""

from __future__ import annotations

import numpy as np

from ..config import DEFAULTS
from ..errors import UsageError
from ..stores.index import Index
from ..types import Hit
from .dense import DenseRetriever
from ..llm.backend import LLMRef
from .llm import LazyLLM

DEFAULT_TEMPLATE = "Please write a passage to answer the question.\nQuestion: {query}\nPassage:"
SAMPLING_TEMPERATURE = 0.7


def check_template(template: str) -> str:
    if "{query}" not in template:
        raise UsageError(f"the hyde template has no {{query}} placeholder: {template[:80]!r}",
                         "write the prompt with {query} where the question goes")
    return template


def mean_vector(vectors: np.ndarray) -> np.ndarray:
    """The L2-normalised mean of the rows (query first, then the passages)."""
    mean = np.asarray(vectors, dtype=np.float64).mean(axis=0)
    norm = np.linalg.norm(mean)
    return (mean / norm if norm > 0 else mean).astype(np.float32)


class HydeRetriever(DenseRetriever):
    name = "hyde"
    uses_llm = True

    def __init__(self, index: Index, llm: "str | LLMRef" = "", n_ctx: int = DEFAULTS.n_ctx,
                 hyde_passages: int = DEFAULTS.hyde_passages,
                 hyde_template: str = "", hyde_max_tokens: int = 128, **_options) -> None:
        if hyde_passages < 1:
            raise UsageError(f"hyde_passages must be at least 1, got {hyde_passages}")
        self.template = check_template(hyde_template or DEFAULT_TEMPLATE)
        self.llm = LazyLLM(llm, n_ctx)
        super().__init__(index)
        self.passages_per_query = int(hyde_passages)
        self.max_tokens = int(hyde_max_tokens)

    def passages(self, query: str) -> list[str]:
        """The hypothetical passages for one query (empty replies are dropped)."""
        messages = [{"role": "user", "content": self.template.replace("{query}", query)}]
        temperature = 0.0 if self.passages_per_query == 1 else SAMPLING_TEMPERATURE
        texts = [self.llm.chat(messages, max_tokens=self.max_tokens, temperature=temperature).strip()
                 for _ in range(self.passages_per_query)]
        return [text for text in texts if text]

    def query_vector(self, query: str) -> np.ndarray:
        return mean_vector(self.embed([query, *self.passages(query)]))

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many([query], k)[0]

    def search_many(self, queries: list[str], k: int) -> list[list[Hit]]:
        if not queries:
            return []
        return self.search_vectors(np.stack([self.query_vector(q) for q in queries]), k)
