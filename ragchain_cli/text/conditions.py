"""What a question's answer must come from: the passage sentence an answer was drawn from, and the
conditions of a question (not a yes/no one) that the passage holding that sentence must meet.

A question that names a number, a year or a rank ("in 2019", "a second offence", "the 42 bus"),
negates its claim ("Which towns did the railway never reach?") or asks for what belongs to someone
("Samuel Brook's daughter") asks about that one case. An answer copied from a passage about another
case ("48,000 visitors" from the 2021 figure, the fine for a first offence, the towns the railway
did reach, whom Samuel Brook married) answers another question: `unmet` names the
question's conditions that the passage the answer comes from does not state (a negation may be
stated by an exclusion: "on every corpus except GENIA"; a measured number in any unit: "350 °F" by
"180 °C").
"""

from __future__ import annotations

import re

from .negations import PROHIBITIONS
from .sentences import sentences
from .units import met_by_measure
from .words import (NUMBER_WORDS, RANK_WORDS, TOKEN, content_stems, is_content, is_negation, number, stem,
                    stems_of, values, without_markers)

# A passage states a negation with these too: "improves F1 on every corpus except GENIA".
# ... and a prohibition denies what "not allowed" asks about: "closed to all sampling", "dogs are banned".
_EXCLUSIONS = frozenset("except excluding without".split()) | PROHIBITIONS
_ASKING = frozenset("which what name list".split())
_POSSESSIVE = re.compile(r"\w['’]s\s+(\w+)")
SOURCE_SHARE = 0.75  # share of the answer's content words a passage sentence holds to be its source (set by hand, a40465e)


def source(answer: str, passages) -> tuple[int, set[str]]:
    """The passage (its index) and the stems of the sentence the answer was shortened from: the one
    holding the most, and at least SOURCE_SHARE, of the answer's content words; (-1, set()) if none."""
    own = set(content_stems(without_markers(answer)))
    units = [(i, stems_of(s)) for i, p in enumerate(passages) for s in sentences(p)]
    found = max(units, key=lambda unit: len(own & unit[1]), default=(-1, set()))
    return found if own and len(own & found[1]) >= SOURCE_SHARE * len(own) else (-1, set())


def unmet(answer: str, question: str, passages) -> list[str]:
    """The question's numbers, ranks, negation and possessed things that the passage the answer comes
    from lacks; only the asking sentence counts ("I can't log in. How do I get back in?")."""
    at, _ = source(answer, passages)
    if at < 0:
        return []
    passage, question = without_markers(passages[at]), (sentences(without_markers(question)) or [""])[-1]
    words = _words(question)
    given, ranks = set(values(passage)), {RANK_WORDS[w] for w in _words(passage) if w in RANK_WORDS}
    counted = [w for w, before in zip(words, [""] + words) if w[:1].isdigit() or w in NUMBER_WORDS
               and w != "one" and before not in _ASKING]  # "Which two rivers ...": the answer's shape
    missing = [w for w in counted if values(w)[0] not in given and not met_by_measure(w, question, [passage])]
    missing += [w for w in words if RANK_WORDS.get(w, "1") != "1" and RANK_WORDS[w] not in ranks]  # "first" is often implied
    if any(is_negation(w) for w in words) and not any(is_negation(w) or w in _EXCLUSIONS for w in _words(passage)):
        missing += [w for w in words if is_negation(w)]
    missing += [w for w in _relations(question) if stem(w) not in stems_of(passage)]
    return list(dict.fromkeys(number(w) for w in missing))


def _relations(question: str) -> list[str]:
    """What a possessive asks of its owner: "daughter" of "Samuel Brook's daughter" (a capitalised
    word after "'s" belongs to a name: "St Mary's Hospital")."""
    return [w for w in _POSSESSIVE.findall(without_markers(question)) if w.islower() and is_content(w)]


def _words(text: str) -> list[str]:
    return [w.lower() for w in TOKEN.findall(text)]


# "moves from 18:10 to 17:10", "rose from 12 to 15 euros": the value before the change is no longer it
_CHANGE = re.compile(r"\b(?:moves?|moved|changes?|changed|increase[sd]?|decrease[sd]?|rises?|rose|falls?|fell|drops?|"
                     r"dropped|shifts?|shifted|reduced?|raised?|lowered?)\b"  # not "goes", "extended": a range
                     r"[^.;]{0,40}?\bfrom\s+(?P<old>[\d.,:]*\d)\b[^.;]{0,12}?\bto\s+(?P<new>[\d.,:]*\d)\b", re.IGNORECASE)


def superseded(answer: str, passages: list[str]) -> tuple[str, str] | None:
    """(old, new) when the answer gives a value that a passage says changes to another, and not the
    new one: "leaves at 18:10" over "the last departure moves from 18:10 to 17:10"."""
    said = set(re.findall(r"\d[\d.,:]*\d|\d", without_markers(answer)))
    for passage in passages:
        for match in _CHANGE.finditer(passage):
            old, new = match.group("old"), match.group("new")
            if old != new and old in said and new not in said:
                return old, new
    return None
