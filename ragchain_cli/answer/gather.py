"""Stage 1, gather: the question searched, its words weighed, the top passages' sentences scored.

Everything here needs the index's answers only (hits, document frequencies, the query encoder),
never the answer model. The search arrives as a callable, so answer/ imports nothing of retrieve/.
Signals (each cheap; decide.py weighs them):
- coverage: the IDF-weighted share of the question's content words found in the top passages, each
  read with its subject (`subject`: its document's title, its section, the name of its file);
- local: the same share in the best single top passage (an answer needs the words together);
- dense: the best dense cosine among the hits (0 without a dense retriever);
- sentence, sentence_coverage: the best cosine between the question and one sentence of the top
  passages, and the largest share of the question's words in one sentence (read with its subject);
- bm25: the best BM25 score divided by the question's total IDF (0 without BM25).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Callable

from ..judge.model import Judge
from ..text.polar import is_polar
from ..text.words import TermStats, is_content, stem, stems_of, tokens
from ..types import Chunk, Hit
from .judging import judged
from .select import Encoder, Sentences, score_sentences
from .versions import Reconciled


@dataclass
class Searched:
    """What the search callable returns: the hits, and the question as searched (spelling corrected)."""

    hits: list[Hit]
    text: str
    corrected: dict[str, str] = field(default_factory=dict)
    note: str = ""
    versions: Reconciled | None = None  # the hits as reconciled across versions (versions.py), when they were


Search = Callable[[str], Searched]


@dataclass
class Signals:
    coverage: float
    local: float
    dense: float
    bm25: float
    sentence: float
    sentence_coverage: float


@dataclass
class Gathered:
    question: str  # as searched
    searched: Searched
    found: Sentences  # the top passages split into sentences, each scored against the question
    signals: Signals
    stats: TermStats | None = None  # the index's document frequencies (rare words are key terms)


def gather(question: str, search: Search, stats: TermStats | None, encoder: Encoder | None,
           passages: int, judge: Judge | None = None) -> Gathered:
    """judge: when given, the best sentences are scored by the answer judge and read in its order."""
    searched = search(question)
    weights = question_weights(searched.text, stats)
    found = score_sentences(searched.text, searched.hits, weights, encoder, passages)
    if judge is not None:
        found = judged(found, searched.text, judge, [subject(h.chunk) for h in found.top], is_polar(searched.text))
    return Gathered(searched.text, searched, found, signals(searched.hits, weights, passages, found), stats)


def question_weights(question: str, stats: TermStats | None) -> dict[str, float]:
    """The question's content stems with their IDF (1.0 each without index statistics)."""
    words: dict[str, str] = {}
    for token in tokens(question):
        if is_content(token):
            words.setdefault(stem(token), token.lower())
    if stats is None:
        return {s: 1.0 for s in words}
    idf = stats.idf(list(words.values()))
    return {s: idf[w] for s, w in words.items()}


def share(weights: dict[str, float], present: set[str]) -> float:
    """The IDF-weighted share of the question's stems that are present (1.0 for no content words)."""
    total = sum(weights.values())
    if total <= 0:
        return 1.0
    return sum(w for s, w in weights.items() if s in present) / total


def signals(hits: list[Hit], weights: dict[str, float], passages: int, found: Sentences) -> Signals:
    held = [stems_of(h.chunk.text) | stems_of(subject(h.chunk)) for h in hits[:passages] if h.chunk is not None]
    dense = max((h.explain["dense"][1] for h in hits if "dense" in h.explain), default=0.0)
    bm25 = max((h.explain["bm25"][1] for h in hits if "bm25" in h.explain), default=0.0)
    total_idf = sum(weights.values()) or 1.0
    return Signals(coverage=share(weights, set().union(*held)), local=max((share(weights, h) for h in held), default=0.0),
                   dense=float(dense), bm25=float(bm25) / total_idf, sentence=found.best_cosine,
                   sentence_coverage=max(found.best_share, sentence_share(weights, found)))


def sentence_share(weights: dict[str, float], found: Sentences) -> float:
    """The largest share of the question's words in one sentence read with its passage's subject."""
    titled = [stems_of(subject(hit.chunk)) for hit in found.top]
    return max((share(weights, stems | titled[p]) for (p, _), stems in zip(found.where, found.stems) if titled[p]),
               default=0.0)


def subject(chunk: Chunk) -> str:
    """What a passage is about beyond its own words: its document's title, its section and, for a
    document that is a whole file, the file's name ("recipes/scones.md": "scones"; a line of a JSONL
    corpus, "corpus.jsonl#12", is not named by its file)."""
    name = "" if "#" in chunk.source else re.sub(r"[\W_]+", " ", PurePath(chunk.source).stem)
    return " ".join(part for part in (chunk.title, chunk.section, name) if part.strip())
