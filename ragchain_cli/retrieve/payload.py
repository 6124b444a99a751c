"""A search hit as the JSON of `search` and `ask` shows it (one definition for both)."""

from __future__ import annotations

from ..types import Hit


def hit_payload(rank: int, hit: Hit) -> dict:
    chunk = hit.chunk
    return {
        "rank": rank, "score": round(hit.score, 6), "chunk_id": hit.chunk_id, "doc_id": hit.doc_id,
        "source": chunk.source, "page": chunk.page, "section": chunk.section, "title": chunk.title,
        "date": chunk.date, "ocr": chunk.ocr,
        "explain": {name: {"rank": r, "score": round(s, 6)} for name, (r, s) in hit.explain.items()},
        "snippet": " ".join(chunk.text.split())[:240],
        "superseded_by": hit.superseded_by or None, "older_versions": list(hit.older_versions),
    }
