"""Rank fusion as plain functions: rrf, cc (convex combination) and the score normalisations.

A run is one retriever's ranked list of Hits, best first; rank = position + 1. Every fusion
returns the UNION of the candidates (a chunk missing from one list is never dropped), ordered
by types.sort_hits, each Hit carrying explain = {retriever: (rank, original score)} for every
list it appeared in. If a chunk appears twice in one list, its first (best) entry counts and
ranks are positions in that de-duplicated list.

Degenerate lists never divide by zero. When every score in a list is equal (including a
single-element list) the normalisations return constants: minmax -> 1.0 (every score is the
maximum), zscore -> 0.0 (every score is the mean), dbsf -> 0.5 (the centre of the 3-sigma
range, as Qdrant does). none is the identity.
"""

from __future__ import annotations

import inspect
import math
from typing import Any, Callable, Mapping

from .config import DEFAULTS
from .errors import UsageError
from .types import Hit, sort_hits

Runs = Mapping[str, list[Hit]]


def minmax(scores: list[float]) -> list[float]:
    """(s - min) / (max - min) into [0, 1]; all 1.0 when every score is equal."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    if high == low:
        return [1.0] * len(scores)
    return [(s - low) / (high - low) for s in scores]


def zscore(scores: list[float]) -> list[float]:
    """(s - mean) / population std (as ranx's zmuv); all 0.0 when every score is equal."""
    if not scores:
        return []
    if max(scores) == min(scores):
        return [0.0] * len(scores)
    mean = math.fsum(scores) / len(scores)
    std = math.sqrt(math.fsum((s - mean) ** 2 for s in scores) / len(scores))
    return [(s - mean) / std for s in scores]


def dbsf(scores: list[float]) -> list[float]:
    """Distribution-based: (s - (mu - 3 sigma)) / (6 sigma), sample sigma as in Qdrant; unclamped.

    All 0.5 when every score is equal or there is a single score.
    """
    if not scores:
        return []
    if len(scores) < 2 or max(scores) == min(scores):
        return [0.5] * len(scores)
    mean = math.fsum(scores) / len(scores)
    sigma = math.sqrt(math.fsum((s - mean) ** 2 for s in scores) / (len(scores) - 1))
    low = mean - 3 * sigma
    return [(s - low) / (6 * sigma) for s in scores]


def none(scores: list[float]) -> list[float]:
    """The raw scores, unchanged."""
    return list(scores)


NORMS: dict[str, Callable[[list[float]], list[float]]] = {
    "minmax": minmax,
    "zscore": zscore,
    "dbsf": dbsf,
    "none": none,
}


def _dedupe(hits: list[Hit]) -> list[Hit]:
    """Keep the first (best-ranked) entry of each chunk_id (the list itself when it has no repeats)."""
    if len({hit.chunk_id for hit in hits}) == len(hits):
        return hits
    seen: set[str] = set()
    kept = []
    for hit in hits:
        if hit.chunk_id not in seen:
            seen.add(hit.chunk_id)
            kept.append(hit)
    return kept


def _union(runs: Runs) -> dict[str, Hit]:
    """One zero-score Hit per candidate, with explain, doc_id and chunk filled from the inputs."""
    table: dict[str, Hit] = {}
    for name, hits in runs.items():
        for rank, hit in enumerate(_dedupe(hits), start=1):
            fused = table.get(hit.chunk_id)
            if fused is None:
                fused = table[hit.chunk_id] = Hit(hit.chunk_id, 0.0, hit.doc_id, chunk=hit.chunk)
            else:
                fused.doc_id = fused.doc_id or hit.doc_id
                fused.chunk = fused.chunk or hit.chunk
            fused.explain[name] = (rank, float(hit.score))
    return table


def _weights(runs: Runs, weights: Mapping[str, float] | None) -> dict[str, float]:
    """Per-run weights: names must exist in runs, values must be >= 0, missing ones are 1.0."""
    given = dict(weights or {})
    unknown = sorted(set(given) - set(runs))
    if unknown:
        raise UsageError(
            f"weights name unknown retriever(s): {', '.join(unknown)}",
            f"weights may name: {', '.join(sorted(runs))}",
        )
    for name, value in given.items():
        if not math.isfinite(value) or value < 0:
            raise UsageError(f"weight for {name!r} must be a number >= 0, got {value!r}")
    return {name: float(given.get(name, 1.0)) for name in runs}


def rrf(runs: Runs, k: float = DEFAULTS.rrf_k, weights: Mapping[str, float] | None = None) -> list[Hit]:
    """Reciprocal rank fusion: score = sum over lists of w_r / (k + rank); weights default 1.0."""
    if k < 0:
        raise UsageError(f"rrf k must be >= 0, got {k!r}", "the usual value is 60")
    w = _weights(runs, weights)
    table = _union(runs)
    for hit in table.values():
        hit.score = math.fsum(w[name] / (k + rank) for name, (rank, _) in hit.explain.items())
    return sort_hits(list(table.values()))


def _normalised(hits: list[Hit], normalise: Callable[[list[float]], list[float]]) -> dict[str, float]:
    unique = _dedupe(hits)
    return dict(zip((h.chunk_id for h in unique), normalise([float(h.score) for h in unique])))


def cc(runs: Runs, weights: Mapping[str, float] | None = None, norm: str = DEFAULTS.norm) -> list[Hit]:
    """Convex combination: sum_r w_r * norm(score_r), weights normalised to sum 1.

    A chunk absent from a list gets that list's lowest normalised score ("as bad as the worst
    retrieved"), not 0: under zscore 0 is the mean, which would rank an absent chunk above
    every below-average chunk that was actually retrieved.
    """
    if norm not in NORMS:
        raise UsageError(f"unknown norm {norm!r}", f"choose one of: {', '.join(sorted(NORMS))}")
    w = _weights(runs, weights)
    total = math.fsum(w.values())
    if runs and total == 0:
        raise UsageError("the fusion weights are all zero", "give at least one retriever a weight > 0")
    table = _union(runs)
    absent = 0.0  # what every candidate gets from each list's floor; a listed one adds its lead over it
    for name, hits in runs.items():
        normed = _normalised(hits, NORMS[norm])
        floor = min(normed.values(), default=0.0)
        share = w[name] / total
        absent += share * floor
        for chunk_id, value in normed.items():
            table[chunk_id].score += share * (value - floor)
    for hit in table.values():
        hit.score += absent
    return sort_hits(list(table.values()))


FUSIONS: dict[str, Callable[..., list[Hit]]] = {"rrf": rrf, "cc": cc}


def _options_for(method: str, options: dict[str, Any]) -> dict[str, Any]:
    """Keep the options this method takes; drop other methods' options; reject names none take."""
    accepted = {m: set(inspect.signature(f).parameters) - {"runs"} for m, f in FUSIONS.items()}
    unknown = sorted(set(options) - set().union(*accepted.values()))
    if unknown:
        raise UsageError(
            f"unknown fusion option(s): {', '.join(unknown)}",
            f"{method} takes: {', '.join(sorted(accepted[method]))}",
        )
    return {key: value for key, value in options.items() if key in accepted[method] and value is not None}


def fuse(method: str, runs: Runs, **options: Any) -> list[Hit]:
    """Fuse runs with FUSIONS[method]. A single run comes back unchanged, in its own order.

    Options meant for another method (norm for rrf, k for cc) are ignored so callers can pass
    their settings whole; None means "use the default".
    """
    if method not in FUSIONS:
        raise UsageError(f"unknown fusion {method!r}", f"choose one of: {', '.join(sorted(FUSIONS))}")
    kept = _options_for(method, options)
    if len(runs) == 1:
        FUSIONS[method](runs, **kept)  # validates the options exactly as a real fusion would
        return _single(runs)
    return FUSIONS[method](runs, **kept)


def _single(runs: Runs) -> list[Hit]:
    """The one run's hits in their own order and with their own scores, explain filled."""
    ((name, hits),) = runs.items()
    return [
        Hit(h.chunk_id, h.score, h.doc_id, {name: (rank, float(h.score))}, h.chunk)
        for rank, h in enumerate(_dedupe(hits), start=1)
    ]


def collapse_to_documents(hits: list[Hit]) -> list[Hit]:
    """Max-passage: each doc_id's best hit (score ties -> smaller chunk_id), ordered by (-score, doc_id).

    Ordering ties by doc_id keeps runs written for document-level qrels deterministic. A hit
    without a doc_id stands for itself (keyed by its chunk_id). Hits are returned, not copied.
    """
    best: dict[str, Hit] = {}
    for hit in sort_hits(hits):
        best.setdefault(hit.doc_id or hit.chunk_id, hit)
    return sorted(best.values(), key=lambda h: (-h.score, h.doc_id or h.chunk_id))


def passages_to_documents(hits: list[Hit], decay: float = 0.0) -> list[Hit]:
    """One retriever's chunk list -> its document list, BEFORE fusion (hits need doc_id).

    A document scores max + decay * second + decay^2 * third ... over its own passages' scores
    in this list (decay 0: max-passage). Each returned Hit is keyed by its doc_id (chunk_id =
    doc_id, so the fusions work on documents unchanged), ordered by (-score, doc_id); which chunk
    stands for the document is `best_passages`' business.
    """
    if not 0.0 <= decay < 1.0:
        raise UsageError(f"passage decay must be >= 0 and < 1, got {decay!r}", "0 is max-passage; 0.1-0.5 are usual")
    if decay == 0.0:  # max-passage: each document's best score, one pass
        best: dict[str, float] = {}
        for hit in hits:
            doc, score = hit.doc_id or hit.chunk_id, float(hit.score)
            if score > best.get(doc, -math.inf):
                best[doc] = score
        return sorted((Hit(doc, score, doc) for doc, score in best.items()), key=lambda h: (-h.score, h.doc_id))
    scores: dict[str, list[float]] = {}
    for hit in _dedupe(hits):
        scores.setdefault(hit.doc_id or hit.chunk_id, []).append(float(hit.score))
    docs = [Hit(doc, math.fsum(s * decay ** i for i, s in enumerate(sorted(found, reverse=True))), doc)
            for doc, found in scores.items()]
    return sorted(docs, key=lambda h: (-h.score, h.doc_id))


def best_passages(hits: list[Hit]) -> dict[str, str]:
    """doc_id -> the chunk_id of its best-ranked hit in this list (lists are best first)."""
    best: dict[str, str] = {}
    for hit in hits:
        best.setdefault(hit.doc_id or hit.chunk_id, hit.chunk_id)
    return best
