"""Answers checked in code: short (one sentence, no preamble) and supported by the passages shown.

The support check looks for the answer's key content in the passages the model was given:
- every number ("1,580,000" and "1580000" are the same number), in a passage that also holds a
  content word of the question or answer,
- every name (a capitalised content word),
- every rare word (one that at most RARE_SHARE of the index's chunks contain, or none at all),
except words the question itself contains (the reader asked about them; whether the documents
cover them is the abstention rule's business). A "Yes" to a yes/no question claims the question's
key content too (its numbers, names and rare words), and all of it must be in one passage: "Yes,
Heron Inlet is closed in August." is not supported by one passage on Heron Inlet and another
that mentions August. An answer is supported when every number and all
but MISSING_ALLOWED of its other key terms are found.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..text.claims import is_polar, said_side
from ..text.compare import operands
from ..text.sentences import sentences
from ..text.words import (TermStats, content_stems, is_content, number, stem, stems_of, tokens, values,
                          without_markers)

RARE_SHARE = 0.02
MISSING_ALLOWED = 0.25  # share of non-number key terms that may be missing (paraphrase, spelling)

def drawn_from(answer: str, question: str, sentence: str) -> float:
    """The share of the answer's own words (stems the question lacks) that `sentence` holds; 0.0 when
    the answer adds no word to the question."""
    own = stems_of(without_markers(answer)) - stems_of(question)
    return len(own & stems_of(sentence)) / len(own) if own else 0.0


def adds_to(answer: str, question: str) -> bool:
    """Does the answer hold a word (or number) the question does not? "The last boat leaves on
    Sundays." adds nothing to "When does the last boat leave on Sunday?"."""
    text = without_markers(answer)
    return bool(set(content_stems(text)) - stems_of(question)) or bool(set(values(text)) - set(values(question)))


@dataclass
class Support:
    supported: bool
    checked: list[str] = field(default_factory=list)  # the answer's key terms
    missing: list[str] = field(default_factory=list)  # those the passages do not contain
    apart: list[str] = field(default_factory=list)  # a Yes's claimed terms found, but not in one passage with the rest
    elsewhere: list[str] = field(default_factory=list)  # found, but in another sentence than the rest of the answer
    units: list[str] = field(default_factory=list)  # a number the passages give with another unit or noun

    def reason(self) -> str:
        """Why the answer is not verified, as a phrase ("" when it is)."""
        if self.supported:
            return ""
        reasons = [f"the passages do not contain {', '.join(self.missing)}"] if self.missing else []
        if self.apart:
            rest = [t for t in self.checked if t not in self.apart and t not in self.missing]
            reasons.append(f"no one passage holds {', '.join(self.apart)}"
                           + (f" together with {', '.join(rest)}" if rest else " together"))
        if self.elsewhere:
            reasons.append(f"{', '.join(self.elsewhere)} comes from another sentence than the rest of the answer")
        if self.units:
            reasons.append(f"the passages give {', '.join(self.units)} with another unit or noun")
        return "; ".join(reasons) or "the passages do not contain its key content"


def key_terms(answer: str, question: str, stats: TermStats | None) -> list[str]:
    """Numbers, names and rare words of the answer that the question does not already contain."""
    asked = stems_of(question)
    found = tokens(without_markers(answer))
    if found and found[0][:1].isupper():  # a sentence's first word is capitalised whatever it is
        found[0] = found[0].lower()
    words = [t for t in found if is_content(t) and stem(t) not in asked]
    rare: set[str] = set()
    plain = [w.lower() for w in words if not (w[0].isdigit() or w[0].isupper())]
    if stats is not None and plain:
        limit = RARE_SHARE * stats.total
        rare = {w for w, df in stats.df(plain).items() if df <= limit}
    keys = [w for w in words if w[0].isdigit() or w[0].isupper() or w.lower() in rare]
    return list(dict.fromkeys(keys))


def check_support(answer: str, question: str, passages: list[str], stats: TermStats | None = None) -> Support:
    """Is the answer's key content in the passages? (see the module doc)."""
    keys = key_terms(answer, question, stats)
    held = [stems_of(p) for p in passages]
    present = set().union(*held)
    about = _subject(answer, question)
    missing = [k for k in keys if stem(k) not in present]
    missing += [k for k in keys if k[0].isdigit() and k not in missing and not _in_context(stem(k), held, about)]
    numbers_missing = any(k[0].isdigit() for k in missing)
    names = [k for k in keys if not k[0].isdigit()]
    allowed = int(MISSING_ALLOWED * len(names))
    claimed = _claimed(answer, question, stats)
    apart = _apart(claimed, held)
    elsewhere = [k for k in stitched(answer, keys, passages) if k not in missing]
    units = unit_mismatch(answer, passages)
    supported = not numbers_missing and len(missing) <= allowed and not apart and not elsewhere and not units
    absent = [c for c in apart if stem(c) not in present and c not in missing]
    return Support(supported=supported, checked=keys + [c for c in claimed if c not in keys],
                   missing=missing + absent, apart=[c for c in apart if c not in absent and c not in missing],
                   elsewhere=elsewhere, units=units)


def stitched(answer: str, keys: list[str], passages: list[str]) -> list[str]:
    """The answer's numbers and names that stand in no sentence among those that best hold the rest of
    its words: "The old school was built in 1972" when 1972 is the fire station's year, the sentence
    before it. Needs at least two other words to place the answer."""
    terms = [k for k in keys if k[0].isdigit() or k[0].isupper()]
    rest = set(content_stems(without_markers(answer))) - {stem(k) for k in terms}
    if not terms or len(rest) < 2:
        return []
    units = [stems_of(s) for p in passages for s in sentences(p)]
    scores = [len(rest & u) for u in units]
    top = max(scores, default=0)
    best = [u for u, score in zip(units, scores) if score == top]
    return [k for k in terms if top and any(stem(k) in u for u in units) and not any(stem(k) in u for u in best)]


def unit_mismatch(answer: str, passages: list[str]) -> list[str]:
    """'41 feet' when every passage that gives 41 gives it in metres: a number of the answer followed by
    a content word, that the passages give only followed by other words."""
    said = _numbers_with_nouns(without_markers(answer))
    given: dict[str, set[str]] = {}
    for passage in passages:
        for value, noun in _numbers_with_nouns(passage):
            given.setdefault(value, set()).add(noun)
    return [f"{value} {noun}" for value, noun in said if given.get(value) and noun not in given[value]]


def _numbers_with_nouns(text: str) -> list[tuple[str, str]]:
    words = tokens(text)
    return [(number(w), stem(n)) for w, n in zip(words, words[1:]) if w[:1].isdigit() and not n[:1].isdigit()
            and is_content(n)]


def _claimed(answer: str, question: str, stats: TermStats | None) -> list[str]:
    """What a "Yes" to a yes/no question claims besides its own words: the question's key content."""
    if not (is_polar(question) and said_side(answer) == "yes"):
        return []
    worked = operands(answer, question)  # "before 1900": the year is the comparison's, not a claimed fact
    return [k for k in key_terms(question, "", stats) if not (k[0].isdigit() and float(number(k)) in worked)]


def _apart(claimed: list[str], held: list[set[str]]) -> list[str]:
    """The claimed terms missing from the passage that holds the most of them: one claim, one
    passage ("Heron Inlet" in one and "August" in another do not make "closed in August")."""
    if not claimed:
        return []
    stems = {term: stem(term) for term in claimed}
    best = max(held, key=lambda h: sum(s in h for s in stems.values()), default=set())
    return [term for term, s in stems.items() if s not in best]


def _subject(answer: str, question: str) -> set[str]:
    """The content stems of the question and answer, numbers aside: what a number must sit beside."""
    return {s for s in content_stems(question) + content_stems(without_markers(answer)) if not s[:1].isdigit()}


def _in_context(numeral: str, held: list[set[str]], about: set[str]) -> bool:
    """Does a passage (its stems) hold the number together with a content word of the question or
    answer? A "12" found only in a passage about something else does not support "a tongue 12 cm long"."""
    return not about or any(numeral in stems and stems & about for stems in held)
