"""Less but better context: the sentences of the top passages that best match the question.

Prompt reading dominates answer time on a CPU, so instead of whole chunks the model reads, from
the first `passages` hits, the sentences most similar to the question (cosine of the query
encoder's embeddings, plus the IDF-weighted share of the question's words they contain), each
with its neighbours, best first, until `budget_tokens` are used. A passage keeps its sentences in
document order, gaps marked with " ... "; passages with no sentence chosen are left out. The
returned hits carry the reduced text, so what the JSON shows is exactly what the model read.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Callable, Protocol

import numpy as np

from ..config import DEFAULTS
from ..types import Hit
from ..text.sentences import sentences
from ..text.words import stems_of

LEXICAL_WEIGHT = 0.5
# A Markdown heading names a topic, and a question (an FAQ's "Q:" line, any sentence ending in "?")
# asks one: neither states anything. They share the question's words without answering it, so
# neither is ever a best sentence (each is still read as a neighbour of one).
_STATES_NOTHING = re.compile(r"#{1,6}\s|(?:Q|Question)\s*:|.*\?\s*$", re.DOTALL)
DENSE_CANDIDATES = 16  # sentences embedded per question: encoding every one cost seconds on 2 cores
BATCH = 8


class Encoder(Protocol):
    def embed(self, texts: list[str]) -> np.ndarray: ...


@dataclass
class Sentences:
    """The top passages split into sentences, each scored against the question."""

    top: list[Hit]
    split: list[list[str]]
    where: list[tuple[int, int]]  # (passage, sentence) of each score
    scores: np.ndarray
    best_cosine: float = 0.0  # the best question-sentence cosine (0.0 without an encoder)
    best_share: float = 0.0  # the largest IDF-weighted share of the question's words in one sentence
    stems: list[set[str]] = field(default_factory=list)  # each scored sentence's stems, in `where` order
    judged: np.ndarray | None = None  # the judge's probability that each answers the question (NaN: not read)

    def text_at(self, k: int) -> str:
        """The k-th scored sentence (in `where` order)."""
        p, i = self.where[k]
        return self.split[p][i]

    def best(self) -> str:
        """The sentence that matches the question best ("" when the passages hold none)."""
        if not self.where:
            return ""
        p, i = self.where[int(np.argmax(self.scores))]
        return self.split[p][i]


def score_sentences(question: str, hits: list[Hit], weights: dict[str, float], encoder: Encoder | None = None,
                    passages: int = DEFAULTS.passages) -> Sentences:
    """Every sentence of the first `passages` hits scored by its lexical share; the DENSE_CANDIDATES
    lexically best also by their cosine (embedded in length-sorted batches, so short sentences are
    not padded to the longest)."""
    top = [h for h in hits if h.chunk is not None and h.chunk.text.strip()][:passages]
    split = [sentences(h.chunk.text) for h in top]
    where = [(p, i) for p, units in enumerate(split) for i in range(len(units))]
    units = [split[p][i] for p, i in where]
    total = sum(weights.values()) or 1.0
    held = [stems_of(u) for u in units]  # once a sentence, not once a question word
    lexical = np.array([sum(w for s, w in weights.items() if s in stems) / total for stems in held])
    says_nothing = [states_nothing(u) for u in units]
    ranked = np.where(says_nothing, 0.0, lexical) if units else lexical
    found = Sentences(top, split, where, ranked, best_share=float(lexical.max(initial=0.0)), stems=held)
    candidates = sorted((i for i in np.argsort(-ranked, kind="stable")[:DENSE_CANDIDATES] if not says_nothing[i]),
                        key=lambda i: len(units[i]))
    if encoder is None or not candidates:
        return found
    found.scores = LEXICAL_WEIGHT * ranked - 1.0  # below any embedded candidate's
    query = encoder.embed([question])[0]
    best = -np.inf
    for start in range(0, len(candidates), BATCH):
        batch = candidates[start : start + BATCH]
        cosines = encoder.embed([units[i] for i in batch]) @ query
        found.scores[batch] = cosines + LEXICAL_WEIGHT * lexical[batch]
        best = max(best, float(cosines.max()))
    found.best_cosine = best
    return found


def states_nothing(sentence: str) -> bool:
    """A heading or a question: never a best sentence (it names or asks, it does not state)."""
    return bool(_STATES_NOTHING.match(sentence))


def choose(found: Sentences, count_tokens: Callable[[str], int], budget_tokens: int, neighbours: int = 1,
           dedupe: bool = True) -> list[Hit]:
    """The best sentences, each with its neighbours when they fit, until the budget is used.

    dedupe: a sentence an earlier (better-ranked) passage also holds is not read twice (overlapping
    chunks of one document share their edges; a repeated sentence both wastes the budget and
    weighs twice with a small model)."""
    split, chosen = found.split, set()
    repeated = _repeated(split) if dedupe else set()
    remaining = budget_tokens
    for order in np.argsort(-found.scores, kind="stable"):
        p, i = found.where[order]
        if (p, i) in repeated:
            continue
        around = [(p, j) for j in range(i - neighbours, i + neighbours + 1)
                  if 0 <= j < len(split[p]) and (p, j) not in chosen and (p, j) not in repeated]
        for group in (around, [(p, i)] if (p, i) in around else []):  # with its neighbours, else alone
            cost = sum(count_tokens(split[p][j]) + 1 for _, j in group)
            if group and cost <= remaining:
                chosen.update(group)
                remaining -= cost
                break
    return [_reduced(found.top[p], split[p], {i for q, i in chosen if q == p}) for p in sorted({q for q, _ in chosen})]


def _repeated(split: list[list[str]]) -> set[tuple[int, int]]:
    """(passage, sentence) of every sentence whose text an earlier passage already holds (a chunk
    overlap's fragment included: it is contained in the earlier passage's whole sentence)."""
    seen = ""
    repeated = set()
    for p, units in enumerate(split):
        folded = [" ".join(u.lower().split()) for u in units]
        repeated.update((p, i) for i, text in enumerate(folded) if len(text) >= 12 and text in seen)
        seen += "\n" + " ".join(folded)
    return repeated


def _reduced(hit: Hit, units: list[str], keep: set[int]) -> Hit:
    parts: list[str] = []
    for i in sorted(keep):
        if parts and i - 1 not in keep:
            parts.append("...")
        parts.append(units[i])
    chunk = dataclasses.replace(hit.chunk, text=" ".join(parts))
    return dataclasses.replace(hit, chunk=chunk)
