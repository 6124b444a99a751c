"""Citations computed in code for answers whose model cited nothing.

Each sentence of the answer (text/sentences.py) is matched to the passage that holds the largest
share of its content words (text/words.py); when that share reaches the threshold, the sentence
gets that passage's [n]. Small local models answer well but rarely write [n] markers, so this keeps
answers traceable without trusting the model to cite.
"""

from __future__ import annotations

from ..text.sentences import sentences
from ..text.words import content_stems, stems_of

MIN_WORDS = 3


def best_passage(sentence: str, passages: list[set[str]], threshold: float, question: str = "") -> int | None:
    """1-based number of the passage covering most of the sentence's content words, if enough. A
    sentence too short to place ("15 years") is read with the question it completes: the passage
    must then hold every word of the sentence and enough of the two together."""
    own = set(content_stems(sentence))
    short = 0 < len(own) < MIN_WORDS
    words = own | set(content_stems(question)) if short else own
    if len(words) < MIN_WORDS:
        return None
    shares = [len(words & p) / len(words) if not short or own <= p else 0.0 for p in passages]
    best = max(range(len(shares)), key=lambda i: (shares[i], -i), default=None)
    if best is None or shares[best] < threshold:
        return None
    return best + 1


def attribute(text: str, passages: list[str], threshold: float = 0.6, question: str = "") -> tuple[str, list[int]]:
    """Append [n] to each sentence supported by passage n; return the text and the numbers used."""
    held = [stems_of(p) for p in passages]
    used: list[int] = []
    cited: list[str] = []
    for sentence in sentences(text):
        number = best_passage(sentence, held, threshold, question)
        if number is not None:
            used.append(number)
            end = len(sentence.rstrip(".!?"))
            sentence = f"{sentence[:end]} [{number}]{sentence[end:]}"
        cited.append(sentence)
    return " ".join(cited), sorted(set(used))
