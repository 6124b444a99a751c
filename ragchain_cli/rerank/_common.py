"""What every reranker shares: passage text, the new Hits, local model folders (models load once
through ragchain_cli.loaded)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

from ..errors import DependencyMissing, ModelNotFound, UsageError
from ..offline import quiet_hub
from ..types import Hit, sort_hits



def passage_text(hit: Hit) -> str:
    """The text a reranker judges: the chunk's title (when present) then its full text."""
    if hit.chunk is None:
        raise UsageError(f"hit {hit.chunk_id} reached the reranker without its text",
                         "rerank hydrated hits (SearchPipeline does this)")
    return hit.chunk.index_text()


def reranked(hits: Sequence[Hit], scores: Sequence[float]) -> list[Hit]:
    """New Hits with the reranker's scores, sorted by (-score, chunk_id), explain["rerank"] added."""
    if len(scores) != len(hits):
        raise UsageError(f"reranker returned {len(scores)} scores for {len(hits)} hits")
    fresh = []
    for rank, (hit, score) in enumerate(zip(hits, scores), start=1):
        explain = dict(hit.explain)
        explain.setdefault("fused", (rank, float(hit.score)))
        fresh.append(replace(hit, score=float(score), explain=explain))
    ordered = sort_hits(fresh)
    for rank, hit in enumerate(ordered, start=1):
        hit.explain["rerank"] = (rank, hit.score)
    return ordered


def reranker_folder(model: str | None, family: str) -> Path:
    """The user-supplied local model folder, or ModelNotFound with one sentence on what to pass."""
    if not model:
        raise ModelNotFound(
            f"the {family} reranker needs a local model folder: pass --reranker-model PATH "
            "(or set RAGCHAIN_RERANKER_MODEL)",
            "no PyPI package ships these weights; point it at a folder with config.json and the weights",
        )
    folder = Path(model).expanduser()
    if not (folder / "config.json").is_file():
        raise ModelNotFound(
            f"{model} is not a local {family} model folder (no config.json): pass --reranker-model PATH "
            "(or set RAGCHAIN_RERANKER_MODEL)",
            "nothing is downloaded; the folder must hold config.json, the tokenizer and the weights",
        )
    return folder


def torch_threads() -> None:
    """Use every core for inference, as the embedder does."""
    import torch

    torch.set_num_threads(os.cpu_count() or 1)


def import_transformers() -> Any:
    quiet_hub()
    try:
        import torch  # noqa: F401
        import transformers
    except ImportError:
        raise DependencyMissing("model rerankers need torch and transformers",
                                "pip install sentence-transformers") from None
    return transformers
