"""Rerankers: one method, rerank(query, hits) -> new Hits, best first. One file per family.

The pipeline hands a reranker the head of the fused list AFTER the Linker has hydrated it, so
every hit carries its full Chunk whatever retriever found it. A reranker returns new Hits
(the input is not modified), higher-is-better scores, ordered by (-score, chunk_id), each with
explain copied and explain["rerank"] = (new rank, score) added (explain["fused"] keeps the
rank and score it came in with).

Families register lazily ("module:attr") so choosing `bm25` never imports torch or llama.cpp.
Every factory accepts **options and ignores the ones it does not use; the CLI passes
model (--reranker-model), llm, n_ctx and instruction.
"""

from __future__ import annotations

from typing import Protocol

from ..registry import Registry
from ..types import Hit


class Reranker(Protocol):
    def rerank(self, query: str, hits: list[Hit]) -> list[Hit]: ...


RERANKERS = Registry("reranker", shared=("llm", "n_ctx", "model", "instruction"))
RERANKERS.register("bm25", "ragchain_cli.rerank.bm25:BM25Reranker",
                   help="BM25 re-scoring of the candidates alone (no model; useful after dense-only retrieval)")
RERANKERS.register("cross-encoder", "ragchain_cli.rerank.cross_encoder:CrossEncoderReranker",
                   help="sentence-transformers CrossEncoder from a local folder (--reranker-model PATH)")
RERANKERS.register("monot5", "ragchain_cli.rerank.monot5:MonoT5Reranker",
                   help="MonoT5: T5 'Query: q Document: d Relevant:' true/false logits, local folder")
RERANKERS.register("tart", "ragchain_cli.rerank.tart:TartReranker",
                   help="TART: instruction + query vs passage cross-encoder, local folder")
RERANKERS.register("upr", "ragchain_cli.rerank.upr:UPRReranker",
                   help="UPR: mean log p(query | passage) from the local GGUF model (llama.cpp)")
RERANKERS.register("llm", "ragchain_cli.rerank.listwise:ListwiseReranker",
                   help="RankGPT: listwise permutations by the local GGUF chat model, sliding window")

__all__ = ["RERANKERS", "Reranker"]
