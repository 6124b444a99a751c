"""One query's search result as `search` prints it (each hit as hits.hit_payload shows it)."""

from __future__ import annotations

from ..hits import hit_payload
from ..types import Hit


def search_payload(pipeline, query: str, hits: list[Hit]) -> dict:
    """One query's result: its hits; `searched` and `corrected` when a word was corrected first
    (retrieve/spelling.py); `expansion_error` when --expand could not be used for it."""
    spelling = pipeline.spelling_of(query)
    searched = spelling.text if spelling.changes else query  # the snippet shows the words searched for
    payload = {"query": query, "hits": [hit_payload(i, h, searched) for i, h in enumerate(hits, start=1)]}
    if spelling.changes:
        payload.update(searched=spelling.text, corrected=spelling.changes)
    failure = pipeline.expansion_error(query)
    if failure:
        payload["expansion_error"] = failure
    return payload
