"""cross-encoder: a sentence-transformers CrossEncoder read from a local folder (--reranker-model).

No PyPI package ships cross-encoder weights, so the folder is the user's (for example a saved
ms-marco-MiniLM-L-6-v2). Nothing is downloaded: a missing folder is a ModelNotFound. A model
with one output label is scored by that label (after its activation); with two or more labels,
by the softmax probability of the last one (label 1 = relevant, as in TART and most binary
rerankers).
"""

from __future__ import annotations

from ..errors import DependencyMissing
from ..loaded import load_once
from ..offline import quiet_hub
from ..types import Hit
from ._common import passage_text, reranked, reranker_folder, torch_threads


def _load(folder: str, max_length: int | None):
    quiet_hub()
    try:
        from sentence_transformers import CrossEncoder
    except ImportError:
        raise DependencyMissing("the cross-encoder reranker needs sentence-transformers",
                                "pip install sentence-transformers") from None
    torch_threads()
    return CrossEncoder(folder, device="cpu", local_files_only=True, max_length=max_length)


def relevance(raw) -> list[float]:
    """One higher-is-better number per pair from CrossEncoder.predict output (n,) or (n, labels)."""
    import numpy as np

    values = np.asarray(raw, dtype=np.float64)
    if values.ndim == 1:
        return values.tolist()
    if values.shape[1] == 1:
        return values[:, 0].tolist()
    shifted = np.exp(values - values.max(axis=1, keepdims=True))
    return (shifted[:, -1] / shifted.sum(axis=1)).tolist()


class CrossEncoderReranker:
    name = "cross-encoder"

    def __init__(self, model: str = "", batch_size: int = 16, max_length: int | None = 512, **_options) -> None:
        folder = reranker_folder(model, self.name)
        self.model = load_once(("cross-encoder", str(folder.resolve()), max_length),
                               lambda: _load(str(folder), max_length))
        self.batch_size = batch_size

    def query_text(self, query: str) -> str:
        """What is paired with each passage (TART prefixes an instruction)."""
        return query

    def pairs(self, query: str, hits: list[Hit]) -> list[tuple[str, str]]:
        text = self.query_text(query)
        return [(text, passage_text(h)) for h in hits]

    def rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
        if not hits:
            return []
        raw = self.model.predict(self.pairs(query, hits), batch_size=self.batch_size, show_progress_bar=False)
        return reranked(hits, relevance(raw))
