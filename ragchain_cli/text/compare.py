"""Comparisons a yes/no question asks, worked out on the answer's numbers.

- of a number: "before 1900", "more than 12", "at least three", "between 10 and 20", "20 or more"
  (`comparison`), tested on the one comparable number of the answer (`quantities`), a measure
  converted into the unit the question compares in ("180 °C" for "above 300 °F");
- of a point against a range the answer states: "closed from 1 April to 15 July" for "closed in
  August?" (`range_side`);
- of two things the question names: "Did the mill close earlier than the station?" answered "The mill
  closed in 1962 and the station in 1966" (`two_sided`): each number of the answer belongs to the
  thing last named before it, and the question's comparative word says which way it must go ("older"
  and "newer" on years: the older has the earlier year).
"""

from __future__ import annotations

import operator
import re

from .units import convert, measures
from .words import content_stems, stem, tokens, values, without_markers

_MONTHS = "january february march april may june july august september october november december".split()
_DAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
_RANGE = re.compile(r"\b(?:from\s+|between\s+)?(\w+)\s+(?:to|until|till|through|and|-|–)\s+(?:\d{1,2}\s+)?(\w+)",
                    re.IGNORECASE)
_BEFORE_NUMBER = [  # a comparison the question asks, said before its number, and its test
    (r"before|earlier than|prior to|less than|fewer than|under|below|smaller than|lower than|shorter than",
     operator.lt),
    (r"after|later than|more than|greater than|over|above|exceeding|larger than|higher than|longer than",
     operator.gt),
    (r"at least|no less than|no fewer than", operator.ge),
    (r"at most|no more than|up to", operator.le),
]
_AFTER_NUMBER = [(r"or more|or later|or above|or over", operator.ge), (r"or fewer|or less|or earlier|or below", operator.le)]
_NUMBER = r"[£$€]?(\d[\d,.:]*\d|\d|\w+(?:\s+(?:hundred|thousand|million|and\s+a\s+half))?)"


def comparison(question: str) -> tuple | None:
    """The comparison a question asks of a number: (test, value, upper) or None. "between 10 and 20"
    gives (None, 10, 20)."""
    text = without_markers(question).lower()
    between = re.search(rf"\bbetween\s+{_NUMBER}\s+and\s+{_NUMBER}", text)
    if between and values(between.group(1)) and values(between.group(2)):
        return None, values(between.group(1))[0], values(between.group(2))[0]
    for pattern, test in _BEFORE_NUMBER:
        found = re.search(rf"\b(?:{pattern})\s+(?:the\s+year\s+|about\s+|around\s+)?{_NUMBER}", text)
        if found and values(found.group(1)):
            return test, values(found.group(1))[0], None
    for pattern, test in _AFTER_NUMBER:
        found = re.search(rf"{_NUMBER}\s+(?:{pattern})\b", text)
        if found and values(found.group(1)):
            return test, values(found.group(1))[0], None
    return None




def operands(answer: str, question: str) -> set[float]:
    """The question's numbers that its comparison with the answer works out rather than claims:
    "1900" of "before 1900", "1850" of "in 1850?" answered with a range of years."""
    compared = comparison(question)
    found = {v for v in (compared or ())[1:] if v is not None}
    if range_side(answer, question) is not None:
        found |= {float(year) for year in _points(question, None)}
    return found


def range_side(answer: str, question: str) -> str | None:
    """"yes" or "no" when the question asks about one month, weekday or year and the answer states a
    range of them ("closed from 1 April to 15 July" for "closed in August?": no); ranges of months
    and weekdays may wrap ("Thursday to Monday")."""
    for kind in (_MONTHS, _DAYS, None):
        asked = _points(question, kind)
        if len(asked) != 1:
            continue
        for match in _RANGE.finditer(without_markers(answer)):
            ends = [_point(match.group(i), kind) for i in (1, 2)]
            if None not in ends:
                return "yes" if _inside(asked[0], *ends, len(kind) if kind else 0) else "no"
    return None


def point_words(question: str) -> set[str]:
    """The question's words that name the one month, weekday or year `range_side` reads ("February")."""
    words = re.findall(r"\w+", without_markers(question))
    for kind in (_MONTHS, _DAYS, None):
        if len(_points(question, kind)) == 1:
            return {w for w in words if _point(w, kind) is not None and not (w == "May" and kind is not _MONTHS)}
    return set()


def _point(word: str, kind) -> int | None:
    lower = word.lower().rstrip("s")
    if kind is None:
        return int(word) if re.fullmatch(r"1\d{3}|20\d{2}", word) else None
    names = [n.rstrip("s") for n in kind]
    return names.index(lower) if lower in names else None


def _points(text: str, kind) -> list[int]:
    words = [w for w in re.findall(r"\w+", without_markers(text)) if not (w == "May" and kind is not _MONTHS)]
    return sorted({p for p in (_point(w, kind) for w in words) if p is not None})


def _inside(point: int, start: int, end: int, cycle: int) -> bool:
    if cycle and end < start:  # "Thursday to Monday", "November to February"
        return point >= start or point <= end
    return start <= point <= end


def quantities(answer: str, question: str) -> set[float]:
    """The answer's numbers that can be compared: not a day of a month ("1 September"), nor a number
    the question states as context ("the strike of 1911")."""
    text = re.sub(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?={'|'.join(_MONTHS)})", " ", without_markers(answer), flags=re.I)
    compared = comparison(question)
    context = set(values(question)) - ({compared[1], compared[2]} if compared else set())
    return _in_asked_unit(set(values(text)) - context, text, question, compared)


def _in_asked_unit(found: set[float], answer: str, question: str, compared: tuple | None) -> set[float]:
    """The answer's numbers with each measure in the unit the question compares in: "180 °C" is 356
    for "above 300 °F" (text/units.py)."""
    asked = [m for m in measures(question) if compared and m.value in compared[1:]]
    for given in measures(answer) if asked else []:
        value = convert(given, asked[0].unit)
        if value is not None and given.unit != asked[0].unit:
            found = (found - {given.value}) | {value}
    return found


def compared_side(compared: tuple, found: set[float]) -> str | None:
    test, value, upper = compared
    if len(found) != 1:
        return None  # no number, or several: nothing to compare
    (stated,) = found
    holds = value <= stated <= upper if test is None else test(stated, value)
    return "yes" if holds else "no"


# The comparative words of "A ... than B" and which way A's number must go: +1 above B's, -1 below.
_DATE_WORDS = {"earlier": -1, "sooner": -1, "older": -1, "later": 1, "newer": 1, "younger": 1}
_SIZE_WORDS = {w: 1 for w in """more greater larger bigger higher longer taller heavier wider deeper faster
    older dearer""".split()} | {w: -1 for w in """less fewer smaller lower shorter lighter narrower shallower
    slower younger cheaper""".split()}
_THAN = re.compile(rf"^\W*\w+\s+(?P<a>.+?)\s+(?P<word>{'|'.join(_DATE_WORDS | _SIZE_WORDS)})\s+(?:\w+\s+)?than\s+"
                   r"(?P<b>[^?]+)", re.IGNORECASE)


def two_sided(answer: str, question: str) -> str | None:
    """"yes" or "no" when the question compares two things it names ("Is the east wing newer than
    the west wing?") and the answer gives one number for each; None otherwise."""
    found = _THAN.match(without_markers(question))
    if not found or values(found.group("b")):
        return None  # "more than 12" compares with a number: `comparison`'s business
    word = found.group("word").lower()
    a, b = content_stems(found.group("a")), set(content_stems(found.group("b")))
    if re.match(r"\W*(?:do|does|did)\b", question, re.IGNORECASE):
        a = a[:-1]  # "Did the mill close earlier than ...": the verb names neither thing
    a = set(a)
    numbers = _numbers_of(answer, a - b, b - a)
    if any(len(set(n)) != 1 for n in numbers):
        return None
    (first,), (second,) = (set(n) for n in numbers)
    dated = all(1000 <= v <= 2100 and v == int(v) for v in (first, second))
    way = (_DATE_WORDS if dated and word in _DATE_WORDS else _SIZE_WORDS).get(word)
    if way is None or first == second:
        return None
    return "yes" if (first - second) * way > 0 else "no"


def _numbers_of(answer: str, a: set[str], b: set[str]) -> tuple[list[float], list[float]]:
    """The answer's numbers, each given to the side (a or b, by their own words) named last before it."""
    text = re.sub(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?={'|'.join(_MONTHS)})", " ", without_markers(answer), flags=re.I)
    side, numbers = None, ([], [])
    for token in tokens(text):
        if token[:1].isdigit() and side is not None:
            numbers[side].extend(values(token))
        elif not token[:1].isdigit():
            s = stem(token)
            side = 0 if s in a else 1 if s in b else side
    return numbers
