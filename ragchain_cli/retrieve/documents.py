"""Documents ranked from document-level evidence (`search --documents`, `eval`).

Each retriever's chunk list is collapsed to ITS documents first (a document's score from its own
passages: max, plus a decayed sum of the others), and only then are the lists fused, so a
document is compared with documents: fusing chunks first lets one retriever's second-best
passage of a document push out another document both retrievers liked. Lists that rank whole
documents already (`bm25-doc`: BM25 over title + full text, when the index has it) join the
fusion as they are. Each fused document is shown by a chunk: of its best passage in each chunk
list, the one the chunk lists rank highest together (fusion.rrf over the chunk lists, unweighted,
with the search's rrf_k: a passage both retrievers put high wins over one only a single list liked;
ties: the list that ranked the document highest), or its first chunk if only a whole-document list found it. A hit's explain stays the
document's: its rank in each list and its best passage's score there.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..config import DEFAULTS
from ..fusion import best_passages, fuse, passages_to_documents, rrf
from ..stores.linker import Linker
from ..types import Hit


class DocumentRanker:
    def __init__(self, linker: Linker, decay: float = 0.0, whole: tuple[str, ...] = ("bm25-doc",)) -> None:
        self.linker = linker
        self.decay = decay
        self.whole = whole  # names of lists that rank documents (and their expansions, `bm25-doc~sub1`)

    def is_whole(self, name: str) -> bool:
        return name.split("~")[0] in self.whole

    def rank(self, method: str, runs: Mapping[str, list[Hit]], limit: int | None = None, **options) -> list[Hit]:
        """Like fusion.fuse, over documents: chunk lists per retriever -> fused documents, each a Hit
        on the chunk that stands for it; the first `limit` of them (all when None). `k` (rrf_k, passed
        whatever the method) also ranks the passages that show a document."""
        chunks = {name: hits for name, hits in runs.items() if not self.is_whole(name)}
        self.linker.link([hit for hits in chunks.values() for hit in hits if not hit.doc_id])  # fills doc_id
        chunks = {name: [h for h in hits if h.doc_id] for name, hits in chunks.items()}
        docs = {name: hits if self.is_whole(name) else passages_to_documents(chunks[name], self.decay)
                for name, hits in runs.items()}
        best = {name: best_passages(hits) for name, hits in chunks.items()}
        fused = fuse(method, docs, **{**options, "weights": self._weights(options.get("weights"), docs)})[:limit]
        standing = _standing(chunks, options.get("k"))
        passages = {hit.doc_id: self._passage(hit, best, standing) for hit in fused}
        unseen = [doc for doc, chunk_id in passages.items() if not chunk_id]
        first = self.linker.docstore.first_chunk_ids(unseen) if unseen else {}
        shown = []
        for hit in fused:  # fusion's own fresh Hits: each is moved onto the chunk that shows it
            hit.chunk_id = passages[hit.doc_id] or first.get(hit.doc_id, "")
            if hit.chunk_id:  # else a document the docstore no longer holds
                shown.append(hit)
        return shown

    def _weights(self, weights: Mapping[str, float] | None, runs: Mapping) -> dict[str, float] | None:
        """A whole-document list shares its chunk retriever's weight, half each: with bm25-doc beside
        bm25, weights bm25=0.4,dense=0.6 become bm25 0.2, bm25-doc 0.2, dense 0.6 (and no weights,
        0.5 / 0.5 / 1), so lexical and dense evidence keep their balance. A whole-document list
        named in the weights keeps the weight given. (Measured on SciFact's two fixed train halves
        against giving bm25-doc bm25's full weight: bench/RESULTS.md, issue 14.)"""
        given = dict(weights or {})
        shared = dict(given)
        for name in runs:
            base, _, sub = name.partition("~")
            chunk = base.removesuffix("-doc") + (f"~{sub}" if sub else "")
            if not self.is_whole(name) or name in given or chunk not in runs:
                continue
            weight = given.get(chunk, 1.0)
            shared[chunk] = shared[name] = weight / 2
        return shared or None

    @staticmethod
    def _passage(hit: Hit, best: Mapping[str, Mapping[str, str]], standing: Mapping[str, float]) -> str:
        """Of the document's best passage in each chunk list, the one with the highest standing
        (ties: the list where the document ranked highest, then list order); '' when only a
        whole-document list found it."""
        chunk_id, key = "", (0.0, 0)
        for name, (at, _score) in hit.explain.items():
            passage = best.get(name, {}).get(hit.doc_id)
            if passage is not None and (not chunk_id or (-standing.get(passage, 0.0), at) < key):
                chunk_id, key = passage, (-standing.get(passage, 0.0), at)
        return chunk_id


def _standing(chunks: Mapping[str, list[Hit]], k: float | None) -> dict[str, float]:
    """Each chunk's sum over the chunk lists of 1 / (k + its rank there): fusion.rrf, unweighted."""
    return {hit.chunk_id: hit.score for hit in rrf(chunks, k=DEFAULTS.rrf_k if k is None else k)}
