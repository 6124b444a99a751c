"""Yes/no questions and the side an answer takes: the restatement reader.

A small model often answers a yes/no question with a statement and no "yes" or "no": "The bridge
was built in 1890." to "Was the bridge built before 1900?". `side_of` reads the side such an
answer takes from its own words and the question's (and, for a comparison, the passage sentence
the answer was shortened from):
- it must restate the question's claim (RESTATES of the question's content words), else no side;
- the answer is cut into parts at a contrast ("but", "however", ";" ...); a part that negates what
  the question does not ask is set aside ("is not paved, but it is open to cyclists"; "cats do not
  need a licence, but dogs ..."), and a last part that negates the claim says "no" ("destroyed the
  nave but not the chapel");
- a contrast or qualification the question lacks that remains ("but", "however", "except", "only"
  ...) means the answer is not a plain yes or no: no side ("does not kill tadpoles, but slows
  their growth");
- a comparison the question asks ("before 1900", "more than 12", "at least three", "between 10 and
  20", "earlier than the station") is worked out on the answer's numbers (text/compare.py): "1890"
  is before 1900, so "yes";
- otherwise a number or rank other than the question's means "no" ("5 million" for "six million",
  "second" for "third"), and so does a negation of the claim that the question lacks ("not",
  "never", "n't"; one inside a relative or conditional clause, "applicants who have not paid ...",
  negates nothing of the claim);
- "yes" when every content word, number, rank and word of comparison or quantity ("same", "all",
  "more" ...) of the question is restated (a name of the question may stand in the sentence the
  answer was shortened from: "in Dunmore").
"""

from __future__ import annotations

import re

from .compare import compared_side, comparison, quantities, range_side, two_sided
from .conditions import source
from .negations import antonyms
from .words import (NUMBER_WORDS, RANK_WORDS, TOKEN, content_stems, is_content, is_negation, number, stem, stems_of,
                    tokens, without_markers)

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
COMPARED_RESTATES = 0.6  # the same for an answer to a comparison, which its number decides

QUALIFIERS = frozenset("""except excluding without but however although though unlike instead rather only
    rarely seldom hardly barely partly partially yet whereas while unless""".split())
# Words that leave a claim open: an answer that holds one (and the question does not) takes no side.
HEDGES = frozenset("""may might possibly perhaps probably usually sometimes often some depending unclear
    maybe likely unlikely generally typically""".split())
# Words the stop list drops that still carry a claim: "the same sound" is not "different sounds".
CLAIM_WORDS = frozenset("""above after against all any before below between both each every few fewer less least
    more most other over same some than under""".split())
# A clause that a negation inside it does not lift to the claim: "who have not paid", "if not ...".
# Words that cut an answer into parts, each read for a negation of its own.
_CONTRASTS = frozenset("but however although though whereas while yet".split())
# "Does it need to be kept cold?" asks what "must it be kept cold?" asks: "need" is no content of the claim.
_SEMI_MODALS = frozenset({"need"})
_SUBORDINATE = frozenset("who whom whose which that if unless when where whether because".split())
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


def restates(answer: str, question: str, passages: tuple[str, ...] | list[str] = ()) -> bool:
    """Does the answer repeat RESTATES of the question's content words (numbers and ranks aside)?
    An answer to a comparison ("at least 18?") is read on its number and need only be about the
    question's subject: COMPARED_RESTATES, counting the words of the passage sentence it was
    shortened from ("Applicants must be 16 or older" from "Applicants to the scheme must be ...")."""
    asked, held = _asked(question), stems_of(without_markers(answer))
    if comparison(question) is None:
        return bool(asked) and len(asked & held) >= RESTATES * len(asked)
    return bool(asked) and len(asked & (held | source(answer, passages)[1])) >= COMPARED_RESTATES * len(asked)


def takes_side(answer: str, question: str) -> bool:
    """The answer to a yes/no question says yes or no, or restates the question's claim."""
    return bool(said_side(answer)) or restates(answer, question)


def side_of(answer: str, question: str, passages: tuple[str, ...] | list[str] = ()) -> str | None:
    """"yes", "no" or None (see the module doc); None too when the answer already says yes or no."""
    if said_side(answer) or not is_polar(question):
        return None
    between = two_sided(answer, question)
    if between is not None and not hedged(answer, question):
        return between  # "The mill closed in 1962 and the station in 1966": each thing with its number
    if not restates(answer, question, passages):
        return None  # the answer is about something else: no side can be read off it
    ranged = range_side(answer, question)
    if ranged is not None:
        return ranged
    return None if hedged(answer, question) else _plain_side(answer, question, passages)


def _plain_side(answer: str, question: str, passages) -> str | None:
    """The side of an answer that restates the question, neither a range nor hedged."""
    asked_words, asked = _words(question), _asked(question)
    said, denied = _claim_words(_words(answer), asked)
    if denied and not claim_negations(asked_words):
        return "no"  # "destroyed the nave but not the chapel"
    if (set(said) & QUALIFIERS) - set(asked_words):
        return None  # "does not kill them, but slows their growth": not a plain yes or no
    compared = comparison(question)
    if compared is not None and comparison(answer) != compared:  # "dogs over six months old" restated
        return compared_side(compared, quantities(answer, question))
    if claim_negations(said) - claim_negations(asked_words):
        return "yes" if _opposite_word(said, asked_words) else "no"  # "not open" for "closed?" says yes
    said_values, asked_values = _ranks_and_numbers(said), _ranks_and_numbers(asked_words)
    if asked_values - said_values and said_values - asked_values:
        return "no"  # another number or rank in place of the one asked about
    held = stems_of(without_markers(answer)) | (_named(question) & source(answer, passages)[1])
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


def _claim_words(words: list[str], asked: set[str]) -> tuple[list[str], bool]:
    """The answer's words without its parts (cut at a contrast or ";") that negate what the question
    does not ask: "is not paved, but it is open to cyclists", "cats do not need a licence, but dogs
    ...". And whether, after a contrast, its last part negates the claim ("the nave but not the
    chapel")."""
    parts, current = [], []
    for word in words:
        if word in _CONTRASTS or word == ";":
            parts, current = parts + [current], [word] if word in _CONTRASTS else []
        else:
            current.append(word)
    scopes = [(part, _negates_claim(part, asked)) for part in [*parts, current] if part]
    kept = [(part, negates) for part, negates in scopes if negates is not False]
    if kept and kept[0][0][0] in _CONTRASTS:
        kept[0] = (kept[0][0][1:], kept[0][1])  # the contrast went with the part dropped before it
    return [w for part, _ in kept for w in part], len(kept) > 1 and kept[-1][1] is True


def _negates_claim(part: list[str], asked: set[str]) -> bool | None:
    """None when the part negates nothing of its main clause; else whether the negation is the
    claim's: the words after it hold a word of the question, and the words before it (its subject)
    are none or hold one ("Cats do not need a licence" is of another subject)."""
    negations = claim_negations(part)
    if not negations:
        return None
    at = next(i for i, w in enumerate(part) if w in negations)
    before, after = ({stem(w) for w in words if is_content(w)} for words in (part[:at], part[at + 1:]))
    return bool(after & asked) and (not before or bool(before & asked))


def _named(question: str) -> set[str]:
    """The stems of the names a question holds (capitalised words after its first)."""
    return {stem(t) for t in tokens(without_markers(question))[1:] if t[:1].isupper()}


def opposite_side(answer: str, question: str) -> bool:
    """Does the answer say one side ("No, ...") and then restate the other ("No, it is closed in May."),
    or say "Yes" and then deny in its main clause ("Yes, CCTV is not used on the island.")?"""
    opening = SIDE_WORD.match(answer)
    if opening is None or claim_negations(_words(question)):  # "No, it is." can be right for "Is it not ...?"
        return False
    said = said_side(answer)
    return side_of(answer[opening.end():], question) not in (None, said) or \
        (said == "yes" and _denied_after_yes(_words(answer[opening.end():]), _words(question)))


def _denied_after_yes(said: list[str], asked: list[str]) -> bool:
    """A main-clause negation, with no contrast, after "Yes": unless it negates the opposite of a word
    of the question ("Yes, the museum is not open on Mondays" for "Is the museum closed on Mondays?")."""
    return bool(claim_negations(said)) and not set(said) & _CONTRASTS and not _opposite_word(said, asked)


def _opposite_word(said: list[str], asked: list[str]) -> bool:
    """Does one text hold a word that says the negative of a word of the other ("open", "closed")?"""
    return any(set(said) & antonyms(w) for w in asked) or any(set(asked) & antonyms(w) for w in said)


def _asked(question: str) -> set[str]:
    return {s for s in content_stems(without_markers(question))
            if not s[:1].isdigit() and s not in RANK_WORDS and s not in _SEMI_MODALS}


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
    side = side_of(answer, question, passages)
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
