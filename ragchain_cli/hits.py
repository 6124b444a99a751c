"""A hit as the JSON of `search` and `ask` shows it, one definition for both (retrieve/payload.py and
answer/payload.py). Not in types.py: the dataclasses import nothing of the package, so every layer
uses them without an import cycle (tests/test_import_graph.py)."""

from __future__ import annotations

from .snippets import snippet
from .types import Hit


def hit_payload(rank: int, hit: Hit, query: str = "") -> dict:
    """A search hit as the JSON of `search` and `ask` shows it (one definition for both); its snippet
    is the part of the chunk that holds the most of the query's words (snippets.py)."""
    chunk = hit.chunk
    return {
        "rank": rank, "score": round(hit.score, 6), "chunk_id": hit.chunk_id, "doc_id": hit.doc_id,
        "source": chunk.source, "page": chunk.page, "section": chunk.section, "title": chunk.title,
        "date": chunk.date, "ocr": chunk.ocr,
        "explain": {name: {"rank": r, "score": round(s, 6)} for name, (r, s) in hit.explain.items()},
        "snippet": snippet(chunk.text, query),
        "superseded_by": hit.superseded_by or None, "older_versions": list(hit.older_versions),
    }
