"""The side the passages take on a yes/no question: the restatement reader (claims.py) turned on
the passages, so that `verify` can tell a reply that contradicts the sentence stating its claim.

Only a sentence that holds every content word, number and rank of the question is read: it states
the claim itself. It says "no" when its negation scopes the claim or when it excepts a word of the
question; otherwise `claims.side_of` reads it as it reads an answer. A sentence that holds all of
them but the month, weekday or year asked about, and states the claim for a range of those ("possible
from May to October" for "... in February?"), takes the side the range gives, unless a negation, an
exception or a word that says a negative ("closed") turns the claim around in it.
"""

from __future__ import annotations

from .claims import _CONTRASTS, _asked, _negates_claim, _ranks_and_numbers, _words, side_of
from .compare import point_words, range_side
from .negations import EXCEPTIONS, NEGATIVES
from .sentences import sentences
from .words import is_content, is_negation, stem, stems_of, tokens, without_markers

_EXCEPTING = frozenset({"except", "excluding"})
EXCEPTED_WITHIN = 3  # words after "except" that it may name: "except on public holidays"
_WITHIN_POINT = frozenset(stem(w) for w in "early mid middle late end beginning start".split())  # "in mid-September"


def passage_side(question: str, passages: list[str]) -> tuple[str, str] | None:
    """The side the passages take on a yes/no question, with a sentence that takes it: `side_of` read
    on each sentence that holds every content word, number and rank of the question ("Adult mayflies
    do not have working mouths" for "Do adult mayflies have working mouths?": "no"). A sentence that
    holds only some of them may be about something else ("The 8:30 ferry does not stop at Ardmore"
    for "Does the 9:30 ferry stop at Ardmore?"). None when no such sentence takes a side, or when
    they take both.
    """
    asked, numbers = _asked(question), _ranks_and_numbers(_words(question))
    if not asked:
        return None
    found: dict[str, str] = {}
    ranged = _range_reading(question, asked)
    for passage in passages:
        for unit in sentences(passage):
            if not (asked <= stems_of(without_markers(unit)) and numbers <= _ranks_and_numbers(_words(unit))):
                side = _ranged(unit, question, *ranged) if ranged else None
            else:
                denied = _denies(unit, asked) or _excepted(unit, question)
                side = "no" if denied else side_of(unit, question, passages)
            if side is not None:
                found.setdefault(side, unit)
    return next(iter(found.items())) if len(found) == 1 else None


def ranged_side(question: str, passages: list[str]) -> str | None:
    """The side the passages' sentences that state the claim for a range (`_ranged`) take on the month,
    weekday or year the question asks about; None when none does, or when they disagree."""
    ranged = _range_reading(question, _asked(question))
    if not ranged:
        return None
    found = {side for passage in passages for unit in sentences(passage) if (side := _ranged(unit, question, *ranged))}
    return next(iter(found)) if len(found) == 1 else None


def _range_reading(question: str, asked: set[str]) -> tuple[set[str], set[str]] | None:
    """What `_ranged` reads each sentence against, worked out once a question: the claim's other
    stems (all but the month, weekday or year asked about) and the question's words; None when the
    question asks about no one month, weekday or year."""
    point = point_words(question)
    rest = asked - {stem(w) for w in point} - _WITHIN_POINT
    return (rest, {w.lower() for w in tokens(question)}) if point and rest else None


def _ranged(sentence: str, question: str, rest: set[str], held: set[str]) -> str | None:
    """The side a sentence stating the claim for a range of months, weekdays or years takes on the one
    the question asks about ("possible from May to October" for "... in February?": no). None when the
    sentence lacks another word of the question (`rest`), or when a negation, an exception or a negative
    word the question (`held`) does not hold ("closed to sampling from 1 April to 15 July") may turn the
    claim around."""
    if not rest <= stems_of(without_markers(sentence)):
        return None
    turned = {w.lower() for w in tokens(sentence)} - held
    if any(is_negation(w) for w in turned) or turned & (EXCEPTIONS | NEGATIVES):
        return None
    return range_side(sentence, question)


def _excepted(sentence: str, question: str) -> bool:
    """The sentence excepts a word of the question ("open every day except Sunday" for "Is it open on
    Sunday?"): "except" or "excluding", not in the question, with the word among the next
    EXCEPTED_WITHIN words of its clause."""
    words, asked_words = _words(sentence), set(_words(question))
    asked = stems_of(without_markers(question))
    for i, word in enumerate(words):
        if word in _EXCEPTING and word not in asked_words:
            after = words[i + 1:i + 1 + EXCEPTED_WITHIN]
            clause = after[:after.index(",")] if "," in after else after
            if any(is_content(w) and stem(w) in asked for w in clause):
                return True
    return False


def _denies(sentence: str, asked: set[str]) -> bool:
    """A sentence with no contrast whose negation scopes the claim ("Adult mayflies do not have working
    mouths and live only a day"): the qualifier of another clause leaves the denial whole."""
    words = _words(sentence)
    return not set(words) & _CONTRASTS and bool(_negates_claim(words, asked))
