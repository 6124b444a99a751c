"""Words as the answer checks see them: content words, numbers, names, a light stem, and IDF.

Matching is forgiving about form ("feeds" = "feed", "1,200" = "1200": words are stemmed by the
lexical index's own Snowball stemmer) and strict about substance: a word counts as present in a
text when its stem is among the text's stems.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

from ..retrieve.stopwords import STOPWORDS
from ..stores.lexical import analyzer

_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)
_MARKER = re.compile(r"\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]")  # a citation: "[2]", "[1, 3]"
# Question and answer words that carry no subject of their own.
FILLER = frozenset("""what which who whom whose when where why how many much long old tell name called call
    known also according passage passages text document documents say says said answer question kind type
    one two use used yes""".split())


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def without_markers(text: str) -> str:
    """The text without its citation markers ("Berlin [1]." -> "Berlin  ."): they are no content."""
    return _MARKER.sub(" ", text)


def number(token: str) -> str:
    """'1,200' -> '1200'; '3.5' stays; a trailing separator is dropped."""
    return token.replace(",", "").rstrip(".")


def stem(word: str) -> str:
    """A number normalised, or a word as the index stems it ('ants' -> 'ant', "Reykjavik's" -> 'reykjavik')."""
    if word[:1].isdigit():
        return number(word)
    stems = analyzer().analyze(word.replace("’", "'"))
    return stems[0] if stems else word.lower()


def is_content(word: str) -> bool:
    lower = word.lower()
    return word[:1].isdigit() or (len(lower) > 2 and lower not in STOPWORDS and lower not in FILLER)


def content_stems(text: str) -> list[str]:
    """The text's content words, stemmed, in order, without repeats."""
    return list(dict.fromkeys(stem(t) for t in tokens(text) if is_content(t)))


def stems_of(text: str) -> set[str]:
    """Every word of the text stemmed, and its numbers normalised."""
    found = tokens(text)
    numbers = {number(t) for t in found if t[:1].isdigit()}
    return numbers | set(analyzer().analyze(" ".join(t for t in found if not t[:1].isdigit())))


@dataclass
class TermStats:
    """Document frequencies from the lexical index: `doc_freq(words) -> {word: df}` over `total` chunks."""

    total: int
    doc_freq: Callable[[list[str]], dict[str, int]]
    _cache: dict[str, int] = field(default_factory=dict)

    def df(self, words: Iterable[str]) -> dict[str, int]:
        wanted = [w for w in dict.fromkeys(words) if w not in self._cache]
        if wanted:
            self._cache.update(self.doc_freq(wanted))
        return {w: self._cache.get(w, 0) for w in words}

    def idf(self, words: Iterable[str]) -> dict[str, float]:
        """BM25's IDF, ln(1 + (N - df + 0.5) / (df + 0.5)): a word the index never saw weighs most."""
        n = max(self.total, 1)
        return {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in self.df(words).items()}
