"""Stage 4b, quote: an answer that cannot be verified gives way to the passage's own sentence.

When verify finds the model's reply to a question (not a yes/no one) unsupported, the reply is not
shown as the answer. In its place `ask` quotes, word for word and cited, the sentence the answer
judge finds answers the question best, when it reaches the judge's bar for answering. A quote is
drawn from the passages by construction; the reply it replaces stays in the payload as `draft`, with
the reason it was not verified. A yes/no question keeps its flagged reply (a sentence takes no side).

When decide finds no sentence that answers the question but the passages are near it in meaning
(decide.Decision.near: a question worded otherwise than its documents), no model is asked: `ask`
quotes the sentence closest to the question in meaning (`closest`: the query encoder's cosine between
the question and each whole sentence read with its passage's subject), saying that the documents may
not answer it. The answer judge reads the documents' own wording; the encoder was trained on questions
and answers worded apart.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..text.words import PRONOUNS, tokens
from ..types import Citation, Hit
from .select import Encoder, Sentences, states_nothing
from .verify import Verdict

# A sentence that opens by pointing back ("For this reason the birch trees were pruned.", "It closed in
# 1962.") is quoted with the sentence before it, which says what it points to.
_BACK = frozenset("therefore thus hence consequently so for as".split()) | PRONOUNS - {"there"}
# A quote is the passage's own words, cited, and the judge's best sentence for the question, but it is
# not the model's answer checked: it is shown as the closest sentence, not as a verified answer.
QUOTED = "a sentence of the passages quoted in place of the model's answer; whether it answers the question is not checked"
CLOSEST = ("ragchain found no sentence that answers the question, so the documents may not say; this is the "
           "passages' sentence closest to it in meaning, quoted word for word")


@dataclass
class Quoted:
    verdict: Verdict  # the quote, not verified, cited
    passages: list[Hit]  # what the payload lists: the passages read, and the quoted one if it was not among them


def judged_best(found: Sentences, bar: float) -> int | None:
    """The sentence the answer judge finds answers the question best, if it reaches `bar`."""
    if found.judged is None or not np.isfinite(found.judged).any():
        return None
    k = int(np.nanargmax(found.judged))
    return k if found.judged[k] >= bar and _whole(found.text_at(k)) else None


def _whole(sentence: str) -> bool:
    """A sentence, not the tail of one cut at a chunk's edge ("presented three options: ...")."""
    first = sentence.lstrip(" \"'([*-•–")[:1]  # a list item's marker ("- 42 panels") opens nothing
    return first.isupper() or first.isdigit()


def closest(found: Sentences, question: str, encoder: Encoder, subjects: Sequence[str]) -> int | None:
    """The whole sentence, stating something, closest to the question in meaning (None: none)."""
    ks = [k for k in range(len(found.where)) if _whole(found.text_at(k)) and not states_nothing(found.text_at(k))]
    if not ks:
        return None
    texts = [f"{subjects[found.where[k][0]]}: {found.text_at(k)}".lstrip(": ") for k in ks]
    cosines = encoder.embed(texts) @ encoder.embed([question])[0]
    return ks[int(np.argmax(cosines))]


def quote(found: Sentences, read: list[Hit], bar: float) -> Quoted | None:
    """The quote standing in for an unverified reply: the judge's best sentence, at `bar` or above (None: none)."""
    k = judged_best(found, bar)
    return None if k is None else quoted(found, read, k, QUOTED)


def quoted(found: Sentences, read: list[Hit], k: int, reason: str) -> Quoted:
    """Sentence k of the passages quoted, cited (its passage listed after those read when it is not one of them)."""
    p, i = found.where[k]
    hit = found.top[p]
    passages = list(read)
    sentence = _with_antecedent(found.split[p], i)
    number = next((n for n, h in enumerate(read, 1)  # sentences() folds spaces and line breaks
                   if h.chunk_id == hit.chunk_id and " ".join(sentence.split()) in " ".join(h.chunk.text.split())), 0)
    if not number:  # a sentence the model did not read: its passage is listed after those it did
        passages.append(dataclasses.replace(hit, chunk=dataclasses.replace(hit.chunk, text=sentence)))
        number = len(passages)
    chunk = hit.chunk
    cited = Citation(number, hit.chunk_id, chunk.doc_id or hit.doc_id, chunk.source, chunk.page)
    text = " ".join(sentence.split())
    return Quoted(Verdict(True, False, f"{text} [{number}]", reason, citations=[cited]), passages)


def _with_antecedent(units: list[str], i: int) -> str:
    """The passage's i-th sentence, after the sentence before it when it opens by pointing back."""
    first = (tokens(units[i])[:1] or [""])[0].lower()
    if i > 0 and first in _BACK and (first not in {"for", "as"} or _points_back(units[i])):
        return f"{units[i - 1]} {units[i]}"
    return units[i]


def _points_back(sentence: str) -> bool:
    """'For this reason', 'As a result', 'For these reasons': the opening phrase refers to what came before."""
    return [w.lower() for w in tokens(sentence)[:2]] in (["as", "a"], ["for", "this"], ["for", "that"], ["for", "these"], ["for", "those"])
