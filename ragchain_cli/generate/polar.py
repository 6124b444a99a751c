"""Yes/no questions: recognising them, and the side an answer takes.

A small model often answers a yes/no question with a statement and no "yes" or "no":
"Suharto resigned as president." to "Did Suharto resign as president?", or "Montreal's economy
is the second largest ..." to "Is Montreal's economy the third largest ...?". `state_side` says
the side such an answer takes in words, from the answer's own content only:
- "No" when it restates the question's claim negated ("never", "not", "no", "n't" ...), or with
  another number or rank where the question has one ("5 million" for "6 million", "second" for
  "third");
- "Yes" when it restates every content word of the question, with the question's numbers and
  ranks and its words of comparison and quantity ("same", "more", "all" ...), and neither negates
  nor qualifies it ("except", "but", "only" ...);
- otherwise nothing: the answer stays as the model wrote it.
`side_problem` says why an answer to a yes/no question cannot stand as a verified answer: it takes
no side at all, or it says one side and then restates the other ("No, Heron Inlet is closed in
May." to "Is Heron Inlet closed in May?").
"""

from __future__ import annotations

import re

from .terms import content_stems, number, stems_of, tokens, without_markers

_AUXILIARY = (r"(?:is|are|was|were|am|do|does|did|can|could|has|have|had|will|would|shall|should|may|might|must)"
              r"(?:n['’]?t)?\b")
_POLAR = re.compile(rf"^\W*{_AUXILIARY}", re.IGNORECASE)
# "On average, are cougar males heavier?", "Founded in 1703, was it the capital?": the main clause
# after a leading phrase; a question that opens with a question word asks for something else.
_POLAR_AFTER = re.compile(rf"^(?!\W*(?:who|whom|whose|what|which|when|where|why|how)\b)[^,?]+,\s*{_AUXILIARY}",
                          re.IGNORECASE)
_SIDE = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)
_SIDE_WORD = re.compile(r"^\W*(?:yes|no)\s*[,.;:!\-–—]", re.IGNORECASE)  # "No, ..." but not "No ants live ..."
RESTATES = 0.75  # share of a yes/no question's content words an answer repeats to state its claim

_NEGATIONS = frozenset("not never no none neither nor cannot nothing nobody nowhere".split())
_QUALIFIERS = frozenset("""except excluding without but however although though unlike instead rather only
    rarely seldom hardly barely partly partially sometimes""".split())
# Words the stopword list drops that still carry a claim: "the same sound" is not "different
# sounds", "all ants" is not "ants". A "Yes" needs the answer to say those the question says.
_CLAIM_WORDS = frozenset("""above after against all any before below between both each every few fewer less least
    more most other over same some than under""".split())
_COUNTS = "zero one two three four five six seven eight nine ten eleven twelve".split()
_RANKS = "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split()
_VALUES = {w: str(i) for i, w in enumerate(_COUNTS)} | {w: str(i) for i, w in enumerate(_RANKS) if i}
# Function words that may open a sentence in lower case once "Yes, " stands before them.
_OPENERS = frozenset("the a an it its they their there this that these those he she his her we our".split())


def is_polar(question: str) -> bool:
    """A yes/no question: it opens with an auxiliary verb ("Is", "Does", "Can't"), or its main
    clause does after a leading phrase and a comma, and it offers no alternatives ("Is it red or
    blue?" asks for one of them)."""
    return bool(_POLAR.match(question) or _POLAR_AFTER.match(question)) \
        and not re.search(r"\bor\b", question, re.IGNORECASE)


def said_side(answer: str) -> str | None:
    """"yes" or "no" when the answer opens with that word, else None."""
    match = _SIDE.match(answer)
    return match.group(1).lower() if match else None


def takes_side(answer: str, question: str) -> bool:
    """The answer to a yes/no question says yes or no, or restates the question's claim."""
    if said_side(answer):
        return True
    asked = set(content_stems(question))
    return bool(asked) and len(asked & stems_of(answer)) >= RESTATES * len(asked)


def _words(text: str) -> list[str]:
    return [t.lower() for t in tokens(without_markers(text))]


def _values(words: list[str]) -> set[str]:
    """The numbers and ranks a text states: "6", "1,200", "six", "third" -> {"6", "1200", "6", "3"}."""
    return {number(w) if w[:1].isdigit() else _VALUES[w] for w in words if w[:1].isdigit() or w in _VALUES}


def _negations(words: list[str]) -> set[str]:
    return {w for w in words if w in _NEGATIONS or w.endswith(("n't", "n’t"))}


def side_of(answer: str, question: str) -> str | None:
    """"yes", "no" or None (see the module doc); None too when the answer already says yes or no."""
    if said_side(answer) or not is_polar(question):
        return None
    said, asked_words = _words(answer), _words(question)
    values, asked_values = _values(said), _values(asked_words)
    asked = {s for s in content_stems(question) if not s[:1].isdigit() and s not in _VALUES}
    held = stems_of(without_markers(answer))
    if not asked or len(asked & held) < RESTATES * len(asked):
        return None  # the answer is about something else: no side can be read off it
    if _negations(said) - _negations(asked_words):
        return "no"
    if asked_values - values and values - asked_values:
        return "no"  # another number or rank in place of the one asked about
    qualified = (set(said) & _QUALIFIERS) - set(asked_words)
    claims, asked_claims = set(said) & _CLAIM_WORDS, set(asked_words) & _CLAIM_WORDS
    if asked <= held and asked_values <= values and not qualified and asked_claims <= claims:
        return "yes"
    return None


def state_side(answer: str, question: str) -> str:
    """The answer with the side it takes said first ("Yes, Suharto resigned ..."), or unchanged."""
    side = side_of(answer, question)
    if side is None:
        return answer
    text = answer.lstrip()
    if _common(text.split(" ", 1)[0], question):
        text = text[0].lower() + text[1:]
    return f"{side.capitalize()}, {text}"


def _common(word: str, question: str) -> bool:
    """Is the answer's first word a common word, in lower case once "Yes, " stands before it? A
    function word is; so is a word the question writes in lower case ("Lobsters" for "Are
    lobsters ..."). A name keeps its capital ("Suharto", "Montreal's")."""
    lower = word.lower()
    return lower in _OPENERS or (word != lower and lower in question.split()[1:])


def side_problem(answer: str, question: str) -> str:
    """Why the answer to a yes/no question is not a usable yes or no (see the module doc), or ""."""
    if not is_polar(question):
        return ""
    if not takes_side(answer, question):
        return "the answer does not say yes or no"
    opening = _SIDE_WORD.match(answer)
    if opening is None or _negations(_words(question)):  # "No, it is." can be right for "Is it not ...?"
        return ""
    said = said_side(answer)
    if side_of(answer[opening.end():].lstrip(), question) not in (None, said):
        return f'the answer says "{said}" and then the opposite'
    return ""
