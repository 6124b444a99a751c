"""Parallel query expansion: one constrained LLM call per query, every generated query retrieved too.

The LLM returns JSON (a llama.cpp grammar built from SCHEMA): a hypothetical passage, 2-3
sub-questions and 3-5 keywords. They become the queries `passage`, `sub1`..`sub3` and
`keywords` (the keywords joined), each run against the pipeline's retrievers except those
that call an LLM themselves (hyde); the lists join the original query's under names like
`bm25~sub1` and `dense~passage`, and fusion takes the union (de-duplicated by chunk ID). Each
generated list weighs GENERATED_WEIGHT x its retriever's weight: with equal weights the five or
so generated queries outvote the original, and a small model's drift then costs nDCG (SciFact:
smollm2 -0.043 with equal weights, -0.010 at 0.2, on 100 queries; bench/query_ext_bench.py,
removed in 29a3e57; docs/history/RESULTS-history.md has the figures, "Query-side extensions").

Generation is sequential (one llama.cpp context); retrieval of a query's generated queries
runs in a thread pool while the LLM writes the next query's expansion. A reply that is not
usable JSON leaves that query unexpanded; `failed` keeps why (query -> reason) for the caller to show.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor

from ..config import DEFAULTS
from ..llm.llama import GenerationError
from ..types import Hit
from ..llm.backend import LLMRef
from .llm import LazyLLM

Runs = dict[str, list[Hit]]
SEPARATOR = "~"
GENERATED_WEIGHT = 0.2
SCHEMA = {
    "type": "object",
    "properties": {
        "passage": {"type": "string", "maxLength": 400},
        "sub_questions": {"type": "array", "items": {"type": "string", "maxLength": 120},
                          "minItems": 2, "maxItems": 3},
        "keywords": {"type": "array", "items": {"type": "string", "maxLength": 30}, "minItems": 3, "maxItems": 5},
    },
    "required": ["passage", "sub_questions", "keywords"],
}
SYSTEM = (
    "You help a search engine find documents. For the user's question reply with a JSON object: "
    '"passage": a short passage (2-3 sentences) that could answer it; "sub_questions": 2-3 simpler '
    'questions it contains; "keywords": 3-5 search keywords.'
)


def generated_queries(reply: Mapping, original: str) -> dict[str, str]:
    """label -> query text from the model's JSON; blanks and copies of the original are dropped."""
    found: dict[str, str] = {"passage": str(reply.get("passage") or "")}
    subs = [str(s) for s in reply.get("sub_questions") or [] if isinstance(s, str)]
    found.update({f"sub{i}": text for i, text in enumerate(subs[:3], start=1)})
    words = [" ".join(w.split()) for w in reply.get("keywords") or [] if isinstance(w, str)]
    found["keywords"] = " ".join(dict.fromkeys(w for w in words[:5] if w))
    seen = {" ".join(original.lower().split())}
    kept = {}
    for label, text in found.items():
        key = " ".join(text.lower().split())
        if key and key not in seen:
            seen.add(key)
            kept[label] = " ".join(text.split())
    return kept


def expanded_weights(names: list[str], weights: Mapping[str, float], generated_weight: float) -> dict[str, float]:
    """A generated list `bm25~sub1` weighs generated_weight x the weight of `bm25` (default 1)."""
    out = {}
    for name in names:
        base, sep, _ = name.partition(SEPARATOR)
        out[name] = float(weights.get(base, 1.0)) * (generated_weight if sep else 1.0)
    return out


class QueryExpander:
    def __init__(self, llm: "str | LLMRef" = "", n_ctx: int = DEFAULTS.n_ctx, max_tokens: int = 320, generated_weight: float = GENERATED_WEIGHT,
                 workers: int = 4) -> None:
        self.llm = LazyLLM(llm, n_ctx)
        self.max_tokens = int(max_tokens)
        self.generated_weight = float(generated_weight)
        self.workers = max(1, int(workers))
        self.cache: dict[str, dict[str, str]] = {}
        self.failed: dict[str, str] = {}  # query -> why its expansion could not be used

    def ask(self, query: str) -> dict:
        """The model's JSON reply for `query` (raises GenerationError when it is unusable)."""
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": query}]
        return self.llm.chat_json(messages, SCHEMA, max_tokens=self.max_tokens)

    def generate(self, query: str) -> dict[str, str]:
        """The generated queries for `query`, by label (cached per query text)."""
        if query not in self.cache:
            try:
                reply = self.ask(query)
            except GenerationError as exc:
                self.failed[query] = exc.message
                reply = {}
            self.cache[query] = generated_queries(reply, query)
        return self.cache[query]

    def add_runs(self, queries: list[str], runs: list[Runs],
                 retrieve: Callable[[list[str]], list[Runs]]) -> list[Runs]:
        """Add each query's generated lists to its runs; `retrieve` is the pipeline's un-expanded retrieval."""
        with ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="expand") as pool:
            pending: list[tuple[list[str], Future]] = []
            for query in queries:
                generated = self.generate(query)
                labels = list(generated)
                pending.append((labels, pool.submit(retrieve, [generated[label] for label in labels])))
            for base, (labels, future) in zip(runs, pending):
                for label, per_retriever in zip(labels, future.result()):
                    base.update({f"{name}{SEPARATOR}{label}": hits for name, hits in per_retriever.items()})
        return runs

    def weights(self, runs: Runs, weights: Mapping[str, float]) -> dict[str, float] | None:
        if not weights and self.generated_weight == 1.0:
            return None
        return expanded_weights(list(runs), weights, self.generated_weight)
