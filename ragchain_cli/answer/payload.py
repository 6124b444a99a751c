"""Stage 5, payload: one JSON-ready dict per question, shared by `ask --json` and the terminal.

Fields (the contract with `eval --qa`): question, answer, answered, supported, not_verified (why
"supported" is false, a phrase; null otherwise), closest (with not_verified: the sentence of the
passages the judge finds closest to the answer, for a reader to check; null otherwise), unsupported_terms, citations, hits (each search-hit
payload plus "text", the passage as the model read it), timings (retrieve, generate when the
model ran, total; seconds: retrieve and total from the question's start, generate the model's own), evidence (decide.py's signals, score, probability);
"draft" when the model itself declined, or when its reply was not verified and the passage's
sentence is quoted instead ("quoted": true, "supported": false: a quote is not checked to answer,
"draft_not_verified": why the reply was not verified; "quoted" without "draft", "llm" null: a refused question's
closest sentence in meaning, quote.closest); "searched" and "corrected" when a word was corrected;
"versions" (the version groups the answer reconciled) and, on each citation, "superseded_by"
(added by the workflow from versions.py); "llm", what drafted (null when no model did)
(`{"backend": "local" | "served", "model", "path" | "url"}`, llm/backend.describe).
"""

from __future__ import annotations

from ..hits import hit_payload
from ..types import Hit
from .decide import NOT_SAID, Decision
from .draft import Draft
from .verify import Verdict


def blank(question: str) -> dict:
    """An empty input line: an unanswered line with every key an answer has, so a JSONL reader sees one shape."""
    return {"question": question, "answer": "", "answered": False, "supported": None, "not_verified": None,
            "closest": None, "llm": None, "unsupported_terms": [], "citations": [], "hits": [],
            "timings": {"retrieve": 0.0, "total": 0.0}, "evidence": None, "versions": []}


def retrieved(question: str, hits: list[Hit], timings: dict) -> dict:
    """--no-generate: the hits with their text, nothing asked of a model."""
    return {"question": question, "hits": hits_payload(hits, question), "timings": rounded(timings)}


def refused(decision: Decision, text: str, hits: list[Hit], timings: dict) -> dict:
    return {"question": decision.question, "answer": text, "answered": False, "supported": None, "not_verified": None,
            "closest": None, "llm": None, "unsupported_terms": [], "citations": [],
            "hits": hits_payload(hits, decision.question),
            "timings": rounded(timings), "evidence": decision.evidence()}


def answered(decision: Decision, draft: Draft, verdict: Verdict, timings: dict) -> dict:
    if not verdict.answered:  # the model itself found no answer in the passages
        return {**refused(decision, NOT_SAID, draft.passages, timings), "draft": draft.text}
    return {"question": decision.question, "answer": verdict.text, "answered": True, "supported": verdict.supported,
            "not_verified": verdict.reason or None, "closest": verdict.closest or None,
            "unsupported_terms": verdict.unsupported,
            "citations": [citation(c) for c in verdict.citations],
            "hits": hits_payload(draft.passages, decision.question), "timings": rounded(timings),
            "evidence": {**decision.evidence(), "support": None if verdict.judged is None else round(verdict.judged, 4)}}


def quoted_closest(decision: Decision, quoted, timings: dict) -> dict:
    """A refused question's closest sentence in meaning, quoted (quote.closest): no model was asked."""
    verdict = quoted.verdict
    return {"question": decision.question, "answer": verdict.text, "answered": True, "supported": False,
            "not_verified": verdict.reason, "closest": None, "quoted": True, "llm": None, "unsupported_terms": [],
            "citations": [citation(c) for c in verdict.citations], "hits": hits_payload(quoted.passages, decision.question),
            "timings": rounded(timings), "evidence": decision.evidence()}


def with_draft(payload: dict, draft: str, reason: str) -> dict:
    """A quoted answer (quote.py) with the model's reply it stands in for, and why that was not verified."""
    return {**payload, "quoted": True, "draft": draft, "draft_not_verified": reason}


def citation(c) -> dict:
    return {"number": c.number, "chunk_id": c.chunk_id, "doc_id": c.doc_id, "source": c.source, "page": c.page,
            "cited": getattr(c, "cited", True)}


def hits_payload(hits: list[Hit], question: str = "") -> list[dict]:
    return [{**hit_payload(i, h, question), "text": h.chunk.text} for i, h in enumerate(hits, 1)]


def rounded(timings: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 4) for k, v in timings.items()}
