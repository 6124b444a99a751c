"""Stage 4b, quote: an answer that cannot be verified gives way to the passage's own sentence.

When verify finds the model's reply to a question (not a yes/no one) unsupported, the reply is not
shown as the answer. In its place `ask` quotes, word for word and cited, the sentence of the
passages in which the model finds the question: of the CANDIDATES sentences that best match the
question (select.py), the one after which the question is most probable (the mean log-probability
of its tokens; UPR, Sachan et al. 2022, through the model's `score`). A quote is drawn from the
passages by construction; the reply it replaces stays in the payload as `draft`, with the reason it
was not verified. A yes/no question keeps its flagged reply (a sentence takes no side), and so does
a model with no `score` method (a scripted stand-in).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from ..text.asked import gives, kind
from ..text.words import PRONOUNS, stem, stems_of, tokens
from ..types import Citation, Hit
from .gather import subject
from .select import Sentences, states_nothing
from .support import names_asked
from .verify import Verdict

CANDIDATES = 3
MIN_WORDS = 6  # a shorter "sentence" is a caption, a heading or a reference ("City of Toronto, History Resources")
# The mean log-probability of the question's tokens the chosen sentence must reach: below it the
# model does not find the question there either, and the flagged reply stays (half A of qa-cmu-dev:
# the quotes that were right scored -2.1 to -0.3; a bar anywhere in -3.3 .. -2.3 splits them alike).
LIKELY = -3.0
PREFIX = "Read the passage and write a question that it answers.\n\n"
# A sentence that opens by pointing back ("For this reason the birch trees were pruned.", "It closed in
# 1962.") is quoted with the sentence before it, which says what it points to.
_BACK = frozenset("therefore thus hence consequently so for as".split()) | PRONOUNS - {"there"}
SUFFIX = "\nQuestion:"
# A quote is the passage's own words, cited, but nothing checks that it answers the question: it is
# shown as the closest sentence, not as a verified answer (a fresh-wording probe found quotes that
# answer another question: the three options for "which firm is installing ...?")
QUOTED = "a sentence of the passages quoted in place of the model's answer; whether it answers the question is not checked"


@runtime_checkable
class Scorer(Protocol):
    def score(self, prefix: str, bodies: list[str], body_suffix: str, continuation: str) -> list[float]: ...


@dataclass
class Quoted:
    verdict: Verdict  # the quote, verified, cited
    passages: list[Hit]  # what the payload lists: the passages read, and the quoted one if it was not among them


def candidates(found: Sentences, question: str) -> list[int]:
    """Indices (into found.where) of the CANDIDATES best sentences that state something, open as a
    sentence does, give what the question asks for (a time to "when", a reason to "why":
    text/asked.py) and name its names."""
    order = [int(k) for k in np.argsort(-found.scores, kind="stable")]
    asked = kind(question)
    return [k for k in order if not states_nothing(found.text_at(k)) and len(found.text_at(k).split()) >= MIN_WORDS
            and _whole(found.text_at(k)) and gives(found.text_at(k), question, asked)
            and _names_held(found, k, question)][:CANDIDATES]


def _whole(sentence: str) -> bool:
    """A sentence, not the tail of one cut at a chunk's edge ("presented three options: ...")."""
    first = sentence.lstrip(" \"'([*-•–")[:1]  # a list item's marker ("- 42 panels") opens nothing
    return first.isupper() or first.isdigit()


def _names_held(found: Sentences, k: int, question: str) -> bool:
    """Does the sentence name every name of the question that its passage's subject does not? (a
    sentence about the Kittiwake does not answer for the Teal)"""
    about = stems_of(subject(found.top[found.where[k][0]].chunk))
    return {stem(n) for n in names_asked(question, about)} <= found.stems[k]


def closest(found: Sentences, question: str, model: Scorer, subjects: list[str]) -> int | None:
    """The candidate after which the model finds the question most probable, if it is at least
    LIKELY there (None: no such candidate)."""
    chosen = candidates(found, question)
    if not chosen:
        return None
    bodies = [f"Passage ({subjects[found.where[k][0]]}): {found.text_at(k)}" for k in chosen]
    likelihoods = model.score(PREFIX, bodies, SUFFIX, " " + " ".join(question.split()))
    best = int(np.argmax(likelihoods))
    return chosen[best] if likelihoods[best] >= LIKELY else None


def judged_best(found: Sentences, bar: float) -> int | None:
    """The sentence the answer judge finds answers the question best, if it reaches `bar`."""
    if found.judged is None or not np.isfinite(found.judged).any():
        return None
    k = int(np.nanargmax(found.judged))
    return k if found.judged[k] >= bar and _whole(found.text_at(k)) else None


def quote(found: Sentences, question: str, model: object, read: list[Hit], subjects: list[str],
          bar: float | None = None) -> Quoted | None:
    """The quote standing in for an unverified reply (None: no sentence). bar: the answer judge chooses
    (its best sentence, at `bar` or above); None: the model's likelihood does (the judge is off)."""
    if bar is not None:
        k = judged_best(found, bar)
    else:
        k = closest(found, question, model, subjects) if isinstance(model, Scorer) else None
    if k is None:
        return None
    p, i = found.where[k]
    hit = found.top[p]
    passages = list(read)
    sentence = _with_antecedent(found.split[p], i)
    number = next((n for n, h in enumerate(read, 1) if h.chunk_id == hit.chunk_id and sentence in h.chunk.text), 0)
    if not number:  # a sentence the model did not read: its passage is listed after those it did
        passages.append(dataclasses.replace(hit, chunk=dataclasses.replace(hit.chunk, text=sentence)))
        number = len(passages)
    chunk = hit.chunk
    cited = Citation(number, hit.chunk_id, chunk.doc_id or hit.doc_id, chunk.source, chunk.page)
    text = " ".join(sentence.split())
    return Quoted(Verdict(True, False, f"{text} [{number}]", QUOTED, citations=[cited]), passages)


def _with_antecedent(units: list[str], i: int) -> str:
    """The passage's i-th sentence, after the sentence before it when it opens by pointing back."""
    first = (tokens(units[i])[:1] or [""])[0].lower()
    if i > 0 and first in _BACK and (first not in {"for", "as"} or _points_back(units[i])):
        return f"{units[i - 1]} {units[i]}"
    return units[i]


def _points_back(sentence: str) -> bool:
    """'For this reason', 'As a result', 'For these reasons': the opening phrase refers to what came before."""
    return [w.lower() for w in tokens(sentence)[:2]] in (["as", "a"], ["for", "this"], ["for", "that"], ["for", "these"], ["for", "those"])
