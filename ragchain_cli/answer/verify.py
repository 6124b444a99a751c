"""Stage 4, verify: is the draft drawn from the passages, which side does it take, and why not.

- `next_attempt` says whether the draft should be asked again (the orchestrator's loop): a yes/no
  question's reply that takes no side is asked again for yes or no first; one that takes the side
  opposite to the passages' (text/sides.py) is read again, for yes or no first, on the
  sentence it contradicts and its neighbours; any other reply that holds less than DRAWN_FROM_BEST
  of its own words from the sentence best matching the question is read again on that sentence and
  its neighbours (`focus_tokens`).
- `keep` chooses between two drafts: the yes/no reminder's reply replaces the first; a focused
  reading is kept when more of its own words come from the best sentence.
- `verify` gives the Verdict: refused (the model itself found no answer), or answered, verified
  or not verified with the first reason that holds: no side or both sides of a yes/no question, or
  the side opposite to the one the passage sentences stating the whole claim take
  (text/claims.py, text/sides.py), a remark on the passages instead of an answer (text/replies.py), a
  reply that gives nothing of what the question asks for (no one to "who", text/asked.py), a number,
  rank or negation of the question the answer's own passage does not state (text/conditions.py),
  or key content the passages do not hold (support.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..config import DEFAULTS
from ..judge.model import Judge
from ..text.asked import WHAT, gives, kind
from ..text.claims import hedged, opposite_side, said_side, side_case, side_of, state_side, takes_side
from ..text.conditions import superseded, unmet
from ..text.replies import garbled, says_unknown, speaks_of_passages, without_citations
from ..text.sides import passage_side
from ..text.words import TermStats
from ..types import Citation
from .decide import Decision
from .draft import Attempt, Draft
from .prompt import YES_NO_REMINDER, SourceConsulted
from .gather import subject
from .judging import support as support_of
from .support import adds_to, as_written, check_support, drawn_from, unnamed

# Chosen on half A of qa-cmu-dev (bench/RESULTS.md has both halves).
DRAWN_FROM_BEST = 0.5
NO_SIDE = "the answer does not say yes or no"
BOTH_SIDES = 'the answer says "{side}" and then the opposite'
CONTRADICTED = 'the passages say "{side}": "{sentence}"'
REMARK = "the answer speaks of the passages, not of what the question asks"
ECHO = "the answer only repeats the question"
NOT_ASKED = "the answer does not say {what}, which the question asks"
GARBLED = "the answer does not read as one sentence (text copied across columns or lines)"
UNMET = "the passage the answer comes from does not say {terms}, which the question asks about"
UNNAMED = "the sentence the answer comes from does not name {names}, which the question asks about"
CHANGED = "the passages say {old} changes to {new}"
JUDGED_NOT = "the answer judge does not find this answer in the cited passages (support {p:.2f})"


@dataclass
class Verdict:
    answered: bool
    supported: bool | None
    text: str
    reason: str = ""  # why not verified ("" when verified or refused)
    citations: list[Citation] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    judged: float | None = None  # the answer judge's support for the answer (None: not judged)


def next_attempt(decision: Decision, draft: Draft, focus_tokens: int) -> Attempt | None:
    """The attempt to make after `draft`, or None (only a first attempt is followed by another)."""
    if draft.history or draft.attempt != Attempt(draft.attempt.tokens) or says_unknown(draft.text):
        return None
    if decision.polar:
        if not takes_side(draft.text, decision.question):
            return dataclasses.replace(draft.attempt, reminder=YES_NO_REMINDER)
        against = _contradicted(draft, decision.question)
        return Attempt(focus_tokens, YES_NO_REMINDER, focused=True, anchor=against) if focus_tokens and against else None
    best = decision.gathered.found.best()
    if focus_tokens and best and drawn_from(draft.text, decision.question, best) < DRAWN_FROM_BEST:
        return Attempt(tokens=focus_tokens, focused=True)
    return None


def judged_attempt(decision: Decision, draft: Draft, focus_tokens: int, bar: float) -> Attempt | None:
    """The judge's second reading (verdicts "judge"): a yes/no reply with no "yes" or "no" is asked
    again for one; a reply the judge does not find in its passages is read again on the sentence the
    judge finds answers the question best (the sentences are in its order) and its neighbours."""
    if draft.history or draft.attempt != Attempt(draft.attempt.tokens) or says_unknown(draft.text):
        return None
    if decision.polar and said_side(draft.text) is None:
        return dataclasses.replace(draft.attempt, reminder=YES_NO_REMINDER)
    if focus_tokens and (draft.support or 0.0) < bar:
        reminder = YES_NO_REMINDER if decision.polar else draft.attempt.reminder
        return Attempt(focus_tokens, reminder, focused=True)
    return None


def judged_keep(first: Draft, second: Draft) -> Draft:
    """Of two replies, the one the judge finds better supported (the first on a tie, or when the second declines)."""
    better = not says_unknown(second.text) and (second.support or 0.0) > (first.support or 0.0)
    chosen = second if better or (first.attempt.reminder != second.attempt.reminder and said_side(first.text) is None
                                  and not says_unknown(second.text)) else first
    return dataclasses.replace(chosen, seconds=first.seconds + second.seconds, history=[*first.history, first.text])


def _contradicted(draft: Draft, question: str) -> str:
    """The passage sentence whose side on a yes/no question the reply contradicts ("" when none)."""
    passages = [h.chunk.text for h in draft.passages]
    against = passage_side(question, passages)
    side = said_side(draft.text) or side_of(draft.text, question, passages)
    return against[1] if against is not None and side not in (None, against[0]) else ""


def keep(first: Draft, second: Draft, decision: Decision) -> Draft:
    """The draft to go on with, carrying the time both took."""
    chosen = second
    if second.attempt.anchor:  # the reading of the sentence the first reply contradicted
        chosen = first if says_unknown(second.text) else second
    elif second.attempt.focused:
        best = decision.gathered.found.best()
        if says_unknown(second.text) or \
                drawn_from(second.text, decision.question, best) <= drawn_from(first.text, decision.question, best):
            chosen = first
    return dataclasses.replace(chosen, seconds=first.seconds + second.seconds, history=[*first.history, first.text])


def verify(decision: Decision, draft: Draft, stats: TermStats | None, judge: Judge | None = None,
           bar: float = DEFAULTS.judge_supports, verdicts: str = DEFAULTS.verdicts) -> Verdict:
    """verdicts: "rules" (the word rules below), "judge" (default-deny: verified only when the answer
    judge finds the answer in a cited sentence, answer/judging.py) or "both" (both must pass)."""
    if says_unknown(draft.text) or not draft.passages:
        return Verdict(answered=False, supported=None, text=draft.text)
    question, passages = decision.question, [h.chunk.text for h in draft.passages]
    text, support, why = draft.text, None, ""
    if verdicts != "judge":
        if decision.polar:
            text = side_case(state_side(text, question, passages), question, passages)
        support = check_support(text, question, passages, stats)
        why = _rules(text, decision, draft, passages, support)
    judged = None
    if not why and verdicts != "rules":
        judged = _judged(text, decision, draft, judge)
        why = "" if judged >= bar else JUDGED_NOT.format(p=judged)
    citations = draft.citations
    if why:  # never shown as cited fact: no [n] in the text, the passages listed as consulted
        text = without_citations(text)
        citations = [SourceConsulted(c.number, c.chunk_id, c.doc_id, c.source, c.page) for c in citations]
    missing = as_written(support.missing + support.apart, text) if support is not None else []
    return Verdict(True, not why, text, why, citations, missing, judged)


def _rules(text: str, decision: Decision, draft: Draft, passages: list[str], support) -> str:
    """The first word rule that finds the answer unverified ("" when none does)."""
    return _side_problem(text, decision, passages) or (REMARK if speaks_of_passages(text) else "") \
        or (ECHO if not decision.polar and not adds_to(text, decision.question) else "") \
        or _not_asked(text, decision) or (GARBLED if garbled(text) else "") or _unmet(text, decision, passages) \
        or _unnamed(text, decision, draft) or _changed(text, passages) or support.reason(text)


def judged_support(judge: Judge, decision: Decision, draft: Draft) -> float:
    """The answer judge's support for the draft's reply in the passages it cites."""
    return _judged(draft.text, decision, draft, judge)


def _judged(text: str, decision: Decision, draft: Draft, judge: Judge | None) -> float:
    """The answer judge's support for the answer in the passages it cites (0.0 without a judge: default-deny)."""
    if judge is None:
        return 0.0
    if text == draft.text and draft.support is not None:
        return draft.support
    cited = {c.number for c in draft.citations}
    return support_of(judge, decision.question, text, decision.polar, draft.passages, cited,
                      [subject(h.chunk) for h in draft.passages])[0]


def _side_problem(text: str, decision: Decision, passages: list[str]) -> str:
    if not decision.polar:
        return ""
    if not takes_side(text, decision.question) or (said_side(text) is None and hedged(text, decision.question)):
        return NO_SIDE
    if opposite_side(text, decision.question):
        return BOTH_SIDES.format(side=said_side(text))
    against = passage_side(decision.question, passages)  # "Yes, mayflies have mouths." over "... do not have mouths"
    if against is not None and said_side(text) not in (None, against[0]):
        side, sentence = against
        return CONTRADICTED.format(side=side, sentence=sentence if len(sentence) <= 160 else sentence[:157] + "...")
    return ""


def _not_asked(text: str, decision: Decision) -> str:
    """A reply that gives nothing of what the question asks for: no one to "who", no reason to "why"
    (text/asked.py)."""
    asked = "" if decision.polar else kind(decision.question)
    return "" if gives(text, decision.question, asked) else NOT_ASKED.format(what=WHAT[asked])


def _unmet(text: str, decision: Decision, passages: list[str]) -> str:
    """A question (not a yes/no one) about one case ("in 2019", "a second offence", "never") answered
    from a passage about another (text/conditions.py)."""
    missing = [] if decision.polar else unmet(text, decision.question, passages)
    return UNMET.format(terms=", ".join(f'"{t}"' for t in missing)) if missing else ""


def _unnamed(text: str, decision: Decision, draft: Draft) -> str:
    """A reply (not to a yes/no question) whose numbers and names come from a sentence about another
    name than the question's ("the Teal's engine has 60 hp" from the Kittiwake's sentence)."""
    if decision.polar:
        return ""
    names = unnamed(text, decision.question, [h.chunk.text for h in draft.passages],
                    [subject(h.chunk) for h in draft.passages])
    return UNNAMED.format(names=", ".join(f'"{n}"' for n in names)) if names else ""


def _changed(text: str, passages: list[str]) -> str:
    """An answer that gives the value a passage says is changed ("18:10" where "it moves from 18:10 to 17:10")."""
    change = superseded(text, passages)
    return CHANGED.format(old=change[0], new=change[1]) if change else ""
