"""What a model's reply says about itself: a refusal, a preamble to strip.

- A refusal speaks of the speaker or of the passages not holding the answer ("I do not know",
  "The passages do not mention ...", "This is not stated in the text"), or is the answer side's own
  sentinel for an empty reply. "Applications whose income is not stated are rejected" is a fact,
  not a refusal: "not stated" must be said of the passages, or be the whole reply.
- A preamble introduces the answer by its source, up to a comma or colon ("According to the
  passage, ...", "The passage states that ..."); "In documents from 1920, the town ..." is a fact.
"""

from __future__ import annotations

import re

from .sentences import first_sentence
from .words import MARKER_PATTERN, without_markers

NO_ANSWER = "The model gave no answer from the retrieved passages."
_SOURCE = r"(?:the\s+)?(?:provided\s+|given\s+|above\s+)?(?:passages?|context|texts?|documents?|information)"
_MARKERS = rf"(?:\s*{MARKER_PATTERN})*"
_PREAMBLE = re.compile(
    rf"^\s*(?:(?:according\s+to|based\s+on|as\s+stated\s+in|as\s+mentioned\s+in)\s+{_SOURCE}{_MARKERS}"
    rf"(?:\s+(?:provided|given|above))?\s*[,:]?"
    rf"|(?:in|from)\s+the\s+(?:provided\s+|given\s+|above\s+)?(?:passages?|context|texts?|documents?|information)"
    rf"{_MARKERS}"
    rf"(?:\s+(?:provided|given|above))?\s*[,:]"
    rf"|the\s+(?:provided\s+|given\s+)?(?:passages?|context|texts?|documents?){_MARKERS}\s+(?:states?|says?|mentions?|"
    rf"indicates?|explains?)(?:\s+that)?\s*[,:]?)\s*",
    re.IGNORECASE,
)
_UNKNOWN = re.compile(
    rf"\b(?:I|we|{_SOURCE}|it|this)\s+(?:do(?:es)?\s*(?:not|n't)|cannot|can't|could\s*(?:not|n't)|am\s+unable\s+to|"
    r"is\s+no|are\s+no)\s+(?:\w+\s+){0,2}?(?:know|say|mention|contain|provide|specify|state|answer|find|determine|"
    r"include|sure|information|discuss|tell)"
    rf"|^\W*(?:there\s+is\s+)?no\s+(?:information|mention)\b"
    rf"|\bnot\s+(?:mentioned|provided|stated|specified|given|found)\s+(?:in|by)\s+{_SOURCE}"
    r"|^\W*(?:(?:it|this|that|the\s+answer)\s+is\s+)?not\s+(?:mentioned|provided|stated|specified|given|known)\W*$"
    r"|^\W*(?:I\s+)?(?:don't|do\s+not)\s+know\b|^\W*unknown\W*$",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"'[^']+'|\"[^\"]+\"|‘[^’]+’|“[^”]+”")


def says_unknown(text: str) -> bool:
    """The reply is a refusal (see the module doc), or empty, or the sentinel for an empty reply; a
    quoted title ("'I Do Not Know Her' opened in 1954") says nothing of the speaker."""
    return not text.strip() or text.strip() == NO_ANSWER or bool(_UNKNOWN.search(_QUOTED.sub(" ", text)))


# Text that does not read as one sentence: a word cut at a line end with other text inside it
# ("popu- Trains to Leeds leave lation"), two prepositions in a row ("a fall of from March"), a
# preposition before a sentence's opening pronoun ("except We thank"): columns or lines read across.
# A table's neighbouring cells copied as one phrase repeat it with another number and nothing between
# ("every 15 min every 30 min").
def strip_preamble(text: str) -> str:
    """'According to the passage, ants are ...' -> 'Ants are ...'."""
    stripped = _PREAMBLE.sub("", text, count=1)
    if stripped is text or not stripped.strip():
        return text.strip()
    return stripped[0].upper() + stripped[1:].rstrip()


def shorten(text: str) -> str:
    """One sentence, no preamble: what the user sees."""
    return first_sentence(strip_preamble(text).strip())[0].strip()


def without_citations(text: str) -> str:
    """The text with its [n] markers removed: "closed in August [1]." -> "closed in August."."""
    return without_markers(text).strip()
