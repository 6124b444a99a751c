"""Running a search pipeline over a query set into a document-level run {qid: {docid: score}}."""

from __future__ import annotations

from collections.abc import Callable

from ..fusion import collapse_to_documents
from ..types import Hit, Run

BATCH = 256


def to_run_entry(hits: list[Hit]) -> dict[str, float]:
    """Chunks collapse to their document's best score (max-passage)."""
    return {hit.doc_id: hit.score for hit in collapse_to_documents(hits)}


def run_queries(pipeline, queries: dict[str, str], progress: Callable[[int, int], None] | None = None) -> Run:
    """Search every query (in batches, so dense encodes them together) at document level."""
    qids = list(queries)
    run: Run = {}
    for start in range(0, len(qids), BATCH):
        batch = qids[start : start + BATCH]
        for qid, hits in zip(batch, pipeline.search_many([queries[q] for q in batch])):
            run[qid] = to_run_entry(hits)
        if progress:
            progress(min(start + BATCH, len(qids)), len(qids))
    return run
