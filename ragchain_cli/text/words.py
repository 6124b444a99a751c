"""Words as ragchain's text rules see them: tokens, stop words, numbers (in digits and in words),
stems, content words, citation markers, and IDF from the lexical index.

The one tokenizer (TOKEN), stop-word list (STOPWORDS) and citation-marker pattern (MARKER_PATTERN)
of the package and of tools/: the answer path, the judge's training data and `eval --qa`'s marker
stripping use them. The one exception is `eval --qa`'s scorer (evaluation/qa.py), whose tokens and
key-word stop list are part of the published measures' definition (SQuAD's official normalisation
for exact match and F1) and stay fixed so that scores stay comparable.

Matching is forgiving about form ("feeds" = "feed", "1,200" = "1200", "twelve" = "12": words are
stemmed by the lexical index's own Snowball stemmer) and strict about substance: a word counts as
present in a text when its stem is among the text's stems.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable

# A token: a number ("1,200", "3.5") or a word with an inner apostrophe ("Reykjavik's", "don't").
TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)
# A citation marker: "[2]", "[1, 3]", "[1; 3]". MARKER_PATTERN is for building other patterns (it has no
# groups); MARKER finds one with the spaces before it (`space`) and its numbers (`numbers`).
_CITED = r"\d+(?:\s*[,;]\s*\d+)*"
MARKER_PATTERN = rf"\[\s*{_CITED}\s*\]"
MARKER = re.compile(rf"(?P<space>[ \t]*)\[\s*(?P<numbers>{_CITED})\s*\]")

STOPWORDS = frozenset(
    """
    a about above after again against all also although am an and any are as at be because been before being below
    between both but by can could did do does doing done down during each either else even ever every few
    for from further had has have having he her here hers herself him himself his how however i if in into
    is it its itself just may me might more most much must my myself neither no nor not now of off on once
    only or other our ours ourselves out over own per same shall she should since so some such than that
    the their theirs them themselves then there these they this those though through thus to too under
    until up upon us very via was we were what when where whether which while who whom whose why will with
    within without would yet you your yours yourself yourselves
    """.split()
)
# Question and answer words that carry no subject of their own.
FILLER = frozenset("""what which who whom whose when where why how many much long old tell name called call
    known also according passage passages text document documents say says said answer question kind type
    one two use used yes""".split())
# Words that open a sentence speaking of what the sentence before it named ("It burned down in 1936.").
PRONOUNS = frozenset("it its they their them these this those he she his her such there".split())

_COUNTS = """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
    sixteen seventeen eighteen nineteen twenty""".split()
_TENS = {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_RANKS = "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split()
NUMBER_WORDS = {w: str(i) for i, w in enumerate(_COUNTS)} | {w: str(n) for w, n in _TENS.items()}
RANK_WORDS = {w: str(i) for i, w in enumerate(_RANKS) if i}
_WEEK = "monday tuesday wednesday thursday friday saturday sunday".split()
_YEAR = "january february march april may june july august september october november december".split()
_DAYS = {d[:3]: d for d in _WEEK} | {"tues": "tuesday", "weds": "wednesday", "thur": "thursday", "thurs": "thursday"}
_MONTHS = {m[:3]: m for m in _YEAR if m != "may"} | {"sept": "september"}
_CALENDAR_RANGE = re.compile(r"\b([A-Z][a-z]{2,8})\s*(?:-|–|to|until|till|through)\s*([A-Z][a-z]{2,8})\b")
_CLOCK = re.compile(r"\b(\d{1,2}):(\d{2})\b")
_SCALES = {"hundred": 100, "thousand": 10**3, "million": 10**6, "billion": 10**9}


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


def without_markers(text: str) -> str:
    """The text without its citation markers ("Berlin [1]." -> "Berlin ."): they are no content."""
    return MARKER.sub("", text)


def number(token: str) -> str:
    """'1,200' -> '1200'; '3.5' stays; a trailing separator is dropped."""
    return token.replace(",", "").rstrip(".")


def values(text: str) -> list[float]:
    """The numbers a text states, in digits or in words, scaled: "3.5 million" -> 3500000.0,
    "twelve" -> 12.0, "one hundred and forty" -> 140.0, "two and a half" -> 2.5, "1,200" -> 1200.0;
    ranks are not values ("third" is no quantity)."""
    found: list[float] = []
    text = _CLOCK.sub(lambda m: f"{int(m.group(1)) + int(m.group(2)) / 60:.4f}", text)  # 23:40 -> 23.6667
    words = [t.lower() for t in tokens(text)]
    i = 0
    while i < len(words):
        value, i = _value_at(words, i)
        if value is not None:
            found.append(value)
    return found


def _value_at(words: list[str], i: int) -> tuple[float | None, int]:
    """The number that starts at words[i] (digits, or a run of number words) and where it ends."""
    word = words[i]
    if word[:1].isdigit():
        value, i = float(number(word)), i + 1
    elif word in NUMBER_WORDS or (word == "a" and i + 1 < len(words) and words[i + 1] in _SCALES):
        value, i = _words_value(words, i)
    else:
        return None, i + 1
    if i < len(words) and words[i] in _SCALES:
        value, i = value * _SCALES[words[i]], i + 1
    if words[i:i + 3] == ["and", "a", "half"]:
        value, i = value + 0.5, i + 3
    return value, i


def _words_value(words: list[str], i: int) -> tuple[float, int]:
    """"one hundred and forty" -> 140; "a hundred" -> 100; "twenty five" -> 25."""
    total, current = 0.0, 0.0
    while i < len(words):
        word = words[i]
        if word in NUMBER_WORDS:
            current += float(NUMBER_WORDS[word])
        elif word == "a" and i + 1 < len(words) and words[i + 1] in _SCALES:
            current = 1.0
        elif word in ("hundred",):
            current = (current or 1.0) * 100
        elif word == "and" and i + 1 < len(words) and words[i + 1] in NUMBER_WORDS and current >= 100:
            pass
        else:
            break
        i += 1
    return total + current, i


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A number normalised (a number word as its digits), or a word as the index stems it
    ('ants' -> 'ant', "Reykjavik's" -> 'reykjavik'). Cached: the same words recur in every passage,
    snippet and check of a session."""
    if word[:1].isdigit():
        return number(word)
    lower = word.lower()
    if lower in NUMBER_WORDS:
        return NUMBER_WORDS[lower]
    stems = _analyzer().analyze(word.replace("’", "'"))
    return stems[0] if stems else lower


def is_content(word: str) -> bool:
    lower = word.lower()
    return word[:1].isdigit() or (len(lower) > 2 and lower not in STOPWORDS and lower not in FILLER)


def content_words(text: str) -> set[str]:
    """The text's content words (is_content), lower-cased and not stemmed: a cheap overlap of two texts
    (the judge's training data compares thousands of sentences with it)."""
    return {t.lower() for t in tokens(text) if is_content(t)}


def content_stems(text: str) -> list[str]:
    """The text's content words, stemmed, in order, without repeats."""
    return list(dict.fromkeys(stem(t) for t in tokens(text) if is_content(t)))


def stems_of(text: str) -> set[str]:
    """Every word of the text stemmed, its numbers normalised, its number words read as digits, and a
    scaled number also as its value ("3.5 million" holds "3500000")."""
    found = tokens(text)
    numbers = {number(t) for t in found if t[:1].isdigit()}
    numbers |= {NUMBER_WORDS[t.lower()] for t in found if t.lower() in NUMBER_WORDS}
    numbers |= {f"{v:g}" if v < 1e6 else f"{v:.0f}" for v in values(text)}
    return numbers | _calendar_stems(text, found) | set(_analyzer().analyze(" ".join(t for t in found if not t[:1].isdigit())))


def calendar_names(text: str, ranges: bool = False) -> set[str]:
    """The weekdays and months a text abbreviates ("Mon-Fri Sat Sun", "Jan to Mar"), as the stems of
    their names. A capitalised abbreviation counts only in a text that names two or more days (or
    months): a timetable's columns, not "Sat down" or "Sun cream". With `ranges`, also the days or
    months inside a range the text names ("Mon-Fri" and "Monday to Friday" hold Wednesday)."""
    return _calendar_stems(text, tokens(text), ranges)


def _calendar_stems(text: str, found: list[str], ranges: bool = False) -> set[str]:
    """calendar_names over the text's tokens already found (stems_of tokenises once)."""
    named: set[str] = set()
    for kind, cycle in ((_DAYS, _WEEK), (_MONTHS, _YEAR)):
        if len({_calendar(t, kind, cycle) for t in found if t[:1].isupper()} - {None}) < 2:
            continue
        named |= {kind[t.lower()] for t in found if t[:1].isupper() and t.lower() in kind}
        for start, end in _CALENDAR_RANGE.findall(text) if ranges else []:
            first, last = _calendar(start, kind, cycle), _calendar(end, kind, cycle)
            if first is not None and last is not None:
                at = cycle.index(first)
                named |= {cycle[(at + i) % len(cycle)] for i in range((cycle.index(last) - at) % len(cycle) + 1)}
    return {_analyzer().analyze(name)[0] for name in named}


def _calendar(word: str, kind: dict[str, str], cycle: list[str]) -> str | None:
    """The day or month a word names, in full or abbreviated ("Sat", "Saturdays": "saturday")."""
    lower = word.lower()
    name = kind.get(lower) or lower.rstrip("s")
    return name if name in cycle else None


def _analyzer():
    from ..stores.analyzer import analyzer  # the index's own tokenizer, folding and stemmer

    return analyzer()


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
