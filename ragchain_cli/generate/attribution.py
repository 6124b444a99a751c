"""Citations computed in code for answers whose model cited nothing.

Each sentence of the answer is matched to the passage that contains the largest share of its
content words; when that share reaches the threshold, the sentence gets that passage's [n].
Small local models answer well but rarely write [n] markers, so this keeps answers traceable
without trusting the model to cite.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# a sentence ends at . ! ? (not at the point of a number such as 0.42) or at a line end
_SENTENCE = re.compile(r"(?:[^.!?\n]|(?<=\d)\.(?=\d))+(?:[.!?]+|$)")
MIN_WORDS = 3


def content_words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) > 3 or w.isdigit()}


def best_passage(sentence: str, passages: list[set[str]], threshold: float) -> int | None:
    """1-based number of the passage covering most of the sentence's words, if enough."""
    words = content_words(sentence)
    if len(words) < MIN_WORDS:
        return None
    shares = [len(words & p) / len(words) for p in passages]
    best = max(range(len(shares)), key=lambda i: (shares[i], -i), default=None)
    if best is None or shares[best] < threshold:
        return None
    return best + 1


def attribute(text: str, passages: list[str], threshold: float = 0.6) -> tuple[str, list[int]]:
    """Append [n] to each sentence supported by passage n; return the text and the numbers used."""
    words = [content_words(p) for p in passages]
    used: list[int] = []

    def cite(match: re.Match) -> str:
        sentence = match.group(0)
        number = best_passage(sentence, words, threshold)
        if number is None:
            return sentence
        if number not in used:
            used.append(number)
        body = sentence.rstrip()
        end = len(body.rstrip(".!?"))
        return f"{body[:end]} [{number}]{body[end:]}{sentence[len(body):]}"

    return _SENTENCE.sub(cite, text), sorted(used)
