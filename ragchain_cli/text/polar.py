"""Yes/no questions, and the side and claim of a reply to one.

A yes/no reply is checked by the answer judge as the claim it states ("No, the ferry does not run
on Sundays" claims "The ferry does not run on Sundays", answer/judging.py); a bare "Yes." states none.
"""

from __future__ import annotations

import re

from .words import without_markers

_AUXILIARY = (r"(?:is|are|was|were|am|do|does|did|can|could|has|have|had|will|would|shall|should|may|might|must)"
              r"(?:n['’]?t)?\b")
_POLAR = re.compile(rf"^\W*{_AUXILIARY}", re.IGNORECASE)
# "On average, are cougar males heavier?": the main clause after a leading phrase; a question that
# opens with a question word asks for something else.
_POLAR_AFTER = re.compile(rf"^(?!\W*(?:who|whom|whose|what|which|when|where|why|how)\b)[^,?]+,\s*{_AUXILIARY}",
                          re.IGNORECASE)
SIDE = re.compile(r"^\W*(yes|no)\b[\s,.;:!\-–—]*", re.IGNORECASE)  # the side a reply opens with, and what follows it


def is_polar(question: str) -> bool:
    """A yes/no question: it opens with an auxiliary verb ("Is", "Does", "Can't"), or its main
    clause does after a leading phrase and a comma, and it offers no alternatives ("Is it red or
    blue?" asks for one of them)."""
    return bool(_POLAR.match(question) or _POLAR_AFTER.match(question)) \
        and not re.search(r"\bor\b(?!\s+(?:more|fewer|less|later|earlier)\b)", question, re.IGNORECASE)


def said_side(answer: str) -> str | None:
    """"yes" or "no" when the answer opens with that word, else None."""
    match = SIDE.match(without_markers(answer))
    return match.group(1).lower() if match else None


def claim_of(reply: str) -> str:
    """The statement a yes/no reply makes, without its "Yes,"/"No," ("" when fewer than three words are left)."""
    rest = SIDE.sub("", without_markers(reply)).strip()
    return rest[:1].upper() + rest[1:] if len(rest.split()) >= 3 else ""
