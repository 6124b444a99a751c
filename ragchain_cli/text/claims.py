"""Yes/no questions and the side an answer takes: the restatement reader.

A small model often answers a yes/no question with a statement and no "yes" or "no": "The bridge
was built in 1890." to "Was the bridge built before 1900?". `side_of` reads the side such an
answer takes from its own words and the question's only:
- it must restate the question's claim (RESTATES of the question's content words), else no side;
- a contrast or qualification the question lacks ("but", "however", "except", "only" ...) means
  the answer is not a plain yes or no: no side ("does not kill tadpoles, but slows their growth");
- a comparison the question asks ("before 1900", "more than 12", "at least three", "between 10 and
  20") is worked out on the answer's number: "1890" is before 1900, so "yes";
- otherwise a number or rank other than the question's means "no" ("5 million" for "six million",
  "second" for "third"), and so does a negation of the claim that the question lacks ("not",
  "never", "n't"; one inside a relative or conditional clause, "applicants who have not paid ...",
  negates nothing of the claim);
- "yes" when every content word, number, rank and word of comparison or quantity ("same", "all",
  "more" ...) of the question is restated.
"""

from __future__ import annotations

import operator
import re

from .words import (NUMBER_WORDS, RANK_WORDS, TOKEN, content_stems, is_negation, number, stems_of, values,
                    without_markers)

_AUXILIARY = (r"(?:is|are|was|were|am|do|does|did|can|could|has|have|had|will|would|shall|should|may|might|must)"
              r"(?:n['’]?t)?\b")
_POLAR = re.compile(rf"^\W*{_AUXILIARY}", re.IGNORECASE)
# "On average, are cougar males heavier?": the main clause after a leading phrase; a question that
# opens with a question word asks for something else.
_POLAR_AFTER = re.compile(rf"^(?!\W*(?:who|whom|whose|what|which|when|where|why|how)\b)[^,?]+,\s*{_AUXILIARY}",
                          re.IGNORECASE)
_SIDE = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)
SIDE_WORD = re.compile(r"^\W*(?:yes|no)\s*[,.;:!\-–—]\s*", re.IGNORECASE)  # "No, ..." but not "No ants live ..."
RESTATES = 0.75  # share of a yes/no question's content words an answer repeats to state its claim

QUALIFIERS = frozenset("""except excluding without but however although though unlike instead rather only
    rarely seldom hardly barely partly partially yet whereas while unless""".split())
# Words that leave a claim open: an answer that holds one (and the question does not) takes no side.
HEDGES = frozenset("""may might possibly perhaps probably usually sometimes often some depending unclear
    maybe likely unlikely generally typically""".split())
_MONTHS = "january february march april may june july august september october november december".split()
_DAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
_RANGE = re.compile(r"\b(?:from\s+|between\s+)?(\w+)\s+(?:to|until|till|through|and|-|–)\s+(?:\d{1,2}\s+)?(\w+)",
                    re.IGNORECASE)
# Words the stop list drops that still carry a claim: "the same sound" is not "different sounds".
CLAIM_WORDS = frozenset("""above after against all any before below between both each every few fewer less least
    more most other over same some than under""".split())
# A clause that a negation inside it does not lift to the claim: "who have not paid", "if not ...".
_SUBORDINATE = frozenset("who whom whose which that if unless when where whether because".split())
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
_CLAUSE_TOKEN = re.compile(r"[,;]|" + TOKEN.pattern, re.UNICODE)


def is_polar(question: str) -> bool:
    """A yes/no question: it opens with an auxiliary verb ("Is", "Does", "Can't"), or its main
    clause does after a leading phrase and a comma, and it offers no alternatives ("Is it red or
    blue?" asks for one of them)."""
    return bool(_POLAR.match(question) or _POLAR_AFTER.match(question)) \
        and not re.search(r"\bor\b(?!\s+(?:more|fewer|less|later|earlier)\b)", question, re.IGNORECASE)


def said_side(answer: str) -> str | None:
    """"yes" or "no" when the answer opens with that word, else None."""
    match = _SIDE.match(answer)
    return match.group(1).lower() if match else None


def restates(answer: str, question: str) -> bool:
    """Does the answer repeat RESTATES of the question's content words (numbers and ranks aside)?"""
    asked = _asked(question)
    return bool(asked) and len(asked & stems_of(without_markers(answer))) >= RESTATES * len(asked)


def takes_side(answer: str, question: str) -> bool:
    """The answer to a yes/no question says yes or no, or restates the question's claim."""
    return bool(said_side(answer)) or restates(answer, question)


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


def side_of(answer: str, question: str) -> str | None:
    """"yes", "no" or None (see the module doc); None too when the answer already says yes or no."""
    if said_side(answer) or not is_polar(question):
        return None
    said, asked_words = _words(answer), _words(question)
    held = stems_of(without_markers(answer))
    asked = _asked(question)
    if not asked or len(asked & held) < RESTATES * len(asked):
        return None  # the answer is about something else: no side can be read off it
    ranged = range_side(answer, question)
    if ranged is not None:
        return ranged
    if hedged(answer, question) or (set(said) & QUALIFIERS) - set(asked_words):
        return None  # "does not kill them, but slows their growth": not a plain yes or no
    compared = comparison(question)
    if compared is not None:
        return _compared(compared, quantities(answer, question))
    if claim_negations(said) - claim_negations(asked_words):
        return "no"
    said_values, asked_values = _ranks_and_numbers(said), _ranks_and_numbers(asked_words)
    if asked_values - said_values and said_values - asked_values:
        return "no"  # another number or rank in place of the one asked about
    claims, asked_claims = set(said) & CLAIM_WORDS, set(asked_words) & CLAIM_WORDS
    if asked <= held and asked_values <= said_values and asked_claims <= claims:
        return "yes"
    return None


def hedged(answer: str, question: str) -> bool:
    """Does the answer leave the claim open with a word the question does not use ("may", "usually")?
    "May" the month is no hedge."""
    said = [w for w in _words(answer) if not (w == "may" and _month_like(answer))]
    return bool((set(said) & HEDGES) - set(_words(question)))


def _month_like(text: str) -> bool:
    return bool(re.search(r"\b(?:in|of|from|to|until|\d{1,2})\s+May\b|\bMay\s+\d", text))


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


def claim_negations(words: list[str]) -> set[str]:
    """The negations that negate the main claim: not those inside a relative or conditional clause."""
    found, clause_open = set(), False
    for word in words:
        if word in _SUBORDINATE:
            clause_open = True
        elif word in {",", ";"}:
            clause_open = False
        elif is_negation(word) and not clause_open:
            found.add(word)
    return found


def opposite_side(answer: str, question: str) -> bool:
    """Does the answer say one side ("No, ...") and then restate the other ("No, it is closed in May.")?"""
    opening = SIDE_WORD.match(answer)
    if opening is None or claim_negations(_words(question)):  # "No, it is." can be right for "Is it not ...?"
        return False
    said = said_side(answer)
    return side_of(answer[opening.end():], question) not in (None, said)


def quantities(answer: str, question: str) -> set[float]:
    """The answer's numbers that can be compared: not a day of a month ("1 September"), nor a number
    the question states as context ("the strike of 1911")."""
    text = re.sub(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?={'|'.join(_MONTHS)})", " ", without_markers(answer), flags=re.I)
    compared = comparison(question)
    context = set(values(question)) - ({compared[1], compared[2]} if compared else set())
    return set(values(text)) - context


def _compared(compared: tuple, found: set[float]) -> str | None:
    test, value, upper = compared
    if len(found) != 1:
        return None  # no number, or several: nothing to compare
    (stated,) = found
    holds = value <= stated <= upper if test is None else test(stated, value)
    return "yes" if holds else "no"


def _asked(question: str) -> set[str]:
    return {s for s in content_stems(without_markers(question)) if not s[:1].isdigit() and s not in RANK_WORDS}


def _words(text: str) -> list[str]:
    """Lower-case tokens with the commas and semicolons that end a clause kept as tokens."""
    return [t.lower() for t in _CLAUSE_TOKEN.findall(without_markers(text))]


def _ranks_and_numbers(words: list[str]) -> set[str]:
    """The numbers and ranks a text states: "6", "1,200", "six", "third" -> {"6", "1200", "6", "3"}."""
    return {number(w) if w[:1].isdigit() else (NUMBER_WORDS.get(w) or RANK_WORDS[w]) for w in words
            if w[:1].isdigit() or w in NUMBER_WORDS or w in RANK_WORDS}


# Function words that may open a sentence in lower case once "Yes, " stands before them.
_OPENERS = frozenset("the a an it its they their there this that these those he she his her we our".split())


def state_side(answer: str, question: str, passages: tuple[str, ...] | list[str] = ()) -> str:
    """The answer with the side it takes said first ("Yes, the bridge was built in 1890."), or unchanged."""
    side = side_of(answer, question)
    if side is None:
        return answer
    return f"{side.capitalize()}, {_lowered(answer.lstrip(), question, passages)}"


def side_case(answer: str, question: str, passages: tuple[str, ...] | list[str] = ()) -> str:
    """An answer that opens with "Yes, " or "No, " has a common word after it in lower case: "Yes,
    Boots are recommended." -> "Yes, boots are recommended."; a name keeps its capital."""
    opening = SIDE_WORD.match(answer)
    if opening is None or not answer[opening.end():]:
        return answer
    return answer[: opening.end()] + _lowered(answer[opening.end():], question, passages)


def _lowered(text: str, question: str, passages) -> str:
    word = re.sub(r"\W+$", "", text.split(" ", 1)[0])
    return text[0].lower() + text[1:] if word and _common(word, question, passages) else text


def _common(word: str, question: str, passages) -> bool:
    """Is a capitalised first word a common word? A function word is; an acronym or a word written
    with a capital inside a sentence of the question or passages is a name; a word they write in
    lower case is common."""
    lower = word.lower()
    if lower in _OPENERS:
        return True
    if word == lower or any(c.isupper() for c in word[1:]) or word == "I":
        return False
    texts = [question, *passages]
    inside = re.compile(rf"(?<![.!?]\s)(?<!^)\b{re.escape(word)}\b")
    if any(inside.search(t) for t in texts):
        return False  # capitalised where no sentence starts: a name
    return any(re.search(rf"\b{re.escape(lower)}\b", t) for t in texts)
