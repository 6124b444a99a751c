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

import re
from dataclasses import dataclass, field
from typing import Callable

from .polar import is_polar, said_side
from .terms import TermStats, content_stems, is_content, stem, stems_of, tokens, without_markers

RARE_SHARE = 0.02
MISSING_ALLOWED = 0.25  # share of non-number key terms that may be missing (paraphrase, spelling)

_PREAMBLE = re.compile(
    r"^\s*(?:(?:according to|based on|from|in|as stated in|as mentioned in)\s+(?:the\s+)?(?:provided\s+|given\s+)?"
    r"(?:passages?|context|texts?|documents?|information)(?:\s*\[[\d,\s]+\])*(?:\s+(?:provided|given|above))?\s*[,:]?"
    r"|the\s+(?:provided\s+)?(?:passages?|context|texts?|documents?)(?:\s*\[[\d,\s]+\])*\s+(?:states?|says?|mentions?|indicates?|"
    r"explains?)(?:\s+that)?\s*[,:]?)\s*",
    re.IGNORECASE,
)
_ABBREVIATIONS = "".join(rf"(?<!\b{a})" for a in (r"[A-Z]", r"e\.g", r"i\.e", "etc", "Mr", "Dr", "St", "Mt", "vs"))
_SENTENCE_END = re.compile(_ABBREVIATIONS + r"""[.!?](?=\s+["'(A-Z0-9]|\s*\n)""")


_UNKNOWN = re.compile(
    r"\b(?:I|we|the\s+(?:provided\s+|given\s+)?(?:passages?|context|texts?|documents?|information))\s+"
    r"(?:do(?:es)?\s*(?:not|n't)|cannot|can't|could\s*(?:not|n't)|am\s+unable\s+to|is\s+no)\s+"
    r"(?:\w+\s+){0,2}?(?:know|say|mention|contain|provide|specify|state|answer|find|determine|include|sure)"
    r"|\bno\s+(?:information|mention)\b|\bnot\s+(?:mentioned|provided|stated|specified)\b",
    re.IGNORECASE,
)


def says_unknown(text: str) -> bool:
    """The model's reply is a refusal ("I do not know", "The passages do not mention ...")."""
    return bool(_UNKNOWN.search(text))


# An answer whose subject is the passages themselves ("The passage is about the fishing in Heron
# Inlet, not ...", "The passage on violins is not relevant"): a remark on the context, not an answer
# from it (the 135M model's, when it does not find one). A preamble before a fact is stripped first.
# "The passage of the Act in 1867 ..." is a fact, not a remark on the passages.
_ABOUT_PASSAGES = re.compile(r"^\s*(?:the|this|these|that)\s+(?:provided\s+|given\s+)?passages?\b(?!\s+of\b)", re.IGNORECASE)


def speaks_of_passages(answer: str) -> bool:
    """Is the answer a remark on the passages rather than an answer from them?"""
    return bool(_ABOUT_PASSAGES.match(answer))


def passage_remark(answer: str) -> str:
    """Why the answer is not verified when it only remarks on the passages, else "" (as side_problem)."""
    return "the answer speaks of the passages, not of what the question asks" if speaks_of_passages(answer) else ""


def drawn_from(answer: str, question: str, sentence: str) -> float:
    """The share of the answer's own words (stems the question lacks) that `sentence` holds; 0.0 when
    the answer adds no word to the question."""
    own = stems_of(without_markers(answer)) - stems_of(question)
    return len(own & stems_of(sentence)) / len(own) if own else 0.0


def strip_preamble(text: str) -> str:
    """'According to the passage, ants are ...' -> 'Ants are ...'."""
    stripped = _PREAMBLE.sub("", text, count=1)
    if stripped is text or not stripped:
        return text.strip()
    return stripped[0].upper() + stripped[1:].rstrip()


def first_sentence(text: str) -> tuple[str, bool]:
    """The text up to its first sentence end (or a line break), and whether one was found."""
    match = _SENTENCE_END.search(text)
    newline = text.find("\n", 1 if text.startswith("\n") else 0)
    ends = [i for i in (match.end() if match else -1, newline) if i > 0 and text[:i].strip()]
    if not ends:
        return text, False
    return text[: min(ends)].rstrip(), True


def shorten(text: str) -> str:
    """One sentence, no preamble: what the user sees."""
    return first_sentence(strip_preamble(text).strip())[0].strip()


@dataclass
class Support:
    supported: bool
    checked: list[str] = field(default_factory=list)  # the answer's key terms
    missing: list[str] = field(default_factory=list)  # those the passages do not contain
    apart: list[str] = field(default_factory=list)  # a Yes's claimed terms found, but not in one passage with the rest

    def reason(self) -> str:
        """Why the answer is not verified, as a phrase ("" when it is)."""
        if self.supported:
            return ""
        reasons = [f"the passages do not contain {', '.join(self.missing)}"] if self.missing else []
        if self.apart:
            rest = [t for t in self.checked if t not in self.apart and t not in self.missing]
            reasons.append(f"no one passage holds {', '.join(self.apart)}"
                           + (f" together with {', '.join(rest)}" if rest else " together"))
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
    supported = not numbers_missing and len(missing) <= allowed and not apart
    absent = [c for c in apart if stem(c) not in present and c not in missing]
    return Support(supported=supported, checked=keys + [c for c in claimed if c not in keys],
                   missing=missing + absent, apart=[c for c in apart if c not in absent and c not in missing])


def _claimed(answer: str, question: str, stats: TermStats | None) -> list[str]:
    """What a "Yes" to a yes/no question claims besides its own words: the question's key content."""
    return key_terms(question, "", stats) if is_polar(question) and said_side(answer) == "yes" else []


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


class SentenceStream:
    """Relays streamed pieces to `emit` as one short sentence: holds the start back until a
    preamble can be recognised and stripped, and reports `done` once the first sentence ended."""

    HOLD = 48  # characters held back at the start (the longest preamble we strip is shorter)

    def __init__(self, emit: Callable[[str], None] | None) -> None:
        self.emit, self.raw, self.shown, self.done = emit, "", "", False

    def feed(self, piece: str) -> None:
        self.raw += piece
        if len(self.raw) < self.HOLD and not _SENTENCE_END.search(self.raw) and "\n" not in self.raw.strip():
            return
        text, self.done = first_sentence(strip_preamble(self.raw))
        self._flush(text if self.done else text[: len(text) - 12])

    def close(self) -> str:
        text = shorten(self.raw)
        self._flush(text)
        return text

    def _flush(self, text: str) -> None:
        if len(text) > len(self.shown) and text.startswith(self.shown):
            if self.emit is not None:
                self.emit(text[len(self.shown):])
            self.shown = text
