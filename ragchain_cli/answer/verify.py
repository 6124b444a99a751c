"""Stage 4, verify (default-deny): is the reply one the cited passages support, and if not, why not.

- `next_attempt` says whether the draft should be read again (the orchestrator's loop): a yes/no
  question's reply with no "yes" or "no" is asked again for one; a reply the answer judge does not
  find in its passages is read again, focused on the sentences the judge finds answer the question
  best (the context takes them in its order) and their neighbours.
- `keep` chooses between two replies: the one the judge finds better supported.
- `verify` gives the Verdict: refused (the model itself found no answer), or answered, and verified
  only when the answer judge finds the answer in a sentence of the passages it cites (answer/judging.py).
  With `verdicts = "both"` (the default) two word checks must pass first, the ones a sealed probe
  showed still change outcomes for the better beside the judge (bench/RESULTS.md, docs/JUDGE.md):
  the reply adds something to the question (ECHO), and its key content stands in the passages, in
  one passage and one sentence, with the passages' unit (support.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..config import DEFAULTS
from ..judge.claims import ClaimJudge
from ..judge.model import Judge
from ..text.polar import said_side
from ..text.replies import says_unknown, without_citations
from ..text.words import TermStats
from ..types import Citation
from .decide import Decision
from .draft import Attempt, Draft
from .gather import subject
from .judging import reading
from .judging import support as support_of
from .prompt import YES_NO_REMINDER, SourceConsulted
from .support import adds_to, as_written, check_support

ECHO = "the answer only repeats the question"
JUDGED_NOT = "the answer judge does not find this answer in the cited passages (support {p:.0%}; verified from {bar:.0%})"
CLAIM_NOT = "the claim judge does not find this claim in the cited passages (entailed {p:.0%}; verified from {bar:.0%})"
CONTRADICTED = "the cited passage gives another answer: \"{sentence}\""
# The claim judge's "contradicts" does not tell a yes/no reply's side (bench/RESULTS.md, "Yes/no questions":
# AUC 0.467), so the reason names the reply's side as unconfirmed, and the sentence to check it against.
UNCONFIRMED_SIDE = "ragchain could not confirm \"{side}\" from the passages; check it against: \"{sentence}\""


@dataclass
class Verdict:
    answered: bool
    supported: bool | None
    text: str
    reason: str = ""  # why not verified ("" when verified or refused)
    citations: list[Citation] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    judged: float | None = None  # the answer judge's support for the answer (None: not judged)
    closest: str = ""  # not verified: the passages' sentence the judge finds closest to the answer, to check by eye


def next_attempt(decision: Decision, draft: Draft, focus_tokens: int, bar: float) -> Attempt | None:
    """The attempt to make after `draft`, or None (only a first attempt is followed by another)."""
    if draft.history or draft.attempt != Attempt(draft.attempt.tokens) or says_unknown(draft.text):
        return None
    if decision.polar and said_side(draft.text) is None:
        return dataclasses.replace(draft.attempt, reminder=YES_NO_REMINDER)
    if focus_tokens and (draft.support or 0.0) < bar:
        reminder = YES_NO_REMINDER if decision.polar else draft.attempt.reminder
        return Attempt(focus_tokens, reminder, focused=True)
    return None


def keep(first: Draft, second: Draft) -> Draft:
    """Of two replies, the one the judge finds better supported (the first on a tie, or when the
    second declines), carrying the time both took; the yes/no reminder's reply replaces a first with no side."""
    better = not says_unknown(second.text) and (second.support or 0.0) > (first.support or 0.0)
    sided = first.attempt.reminder != second.attempt.reminder and said_side(first.text) is None
    chosen = second if better or (sided and not says_unknown(second.text)) else first
    return dataclasses.replace(chosen, seconds=first.seconds + second.seconds, history=[*first.history, first.text])


def verify(decision: Decision, draft: Draft, stats: TermStats | None, judge: Judge,
           bar: float = DEFAULTS.judge_supports, verdicts: str = DEFAULTS.verdicts,
           claims: ClaimJudge | None = None) -> Verdict:
    """verdicts: "judge" (verified only when the judge finds the answer in a cited sentence) or "both"
    (the word checks too: the module doc). With the claim judge (`claims`), a yes/no reply is verified
    when a cited sentence entails its claim, and any answer the supporting sentence contradicts is not."""
    if says_unknown(draft.text) or not draft.passages:
        return Verdict(answered=False, supported=None, text=draft.text)
    text, support, why = draft.text, None, ""
    if verdicts == "both":
        support = check_support(text, decision.question, [h.chunk.text for h in draft.passages], stats)
        why = ECHO if not decision.polar and not adds_to(text, decision.question) else support.reason(text)
    judged, closest = None, ""
    if not why:
        judged, closest = judged_support(judge, decision, draft, claims)
        why = "" if judged >= bar else (CLAIM_NOT if decision.polar and claims else JUDGED_NOT).format(p=judged, bar=bar)
        if claims is not None and closest and (not why or decision.polar):
            said = reading(claims, decision.question, text, decision.polar, _subject_of(draft, closest), closest)
            why = _contradicted(decision, text, closest) if said.label == "contradicts" else why
    citations = draft.citations
    if why:  # never shown as cited fact: no [n] in the text, the passages listed as consulted
        text = without_citations(text)
        citations = [SourceConsulted(c.number, c.chunk_id, c.doc_id, c.source, c.page) for c in citations]
    missing = as_written(support.missing + support.apart, text) if support is not None else []
    if why and judged is None:  # a word check decided: the sentence a reader can check the answer against
        closest = judged_support(judge, decision, draft, claims)[1]
    return Verdict(True, not why, text, why, citations, missing, judged, closest if why else "")


def judged_support(judge: Judge, decision: Decision, draft: Draft,
                   claims: ClaimJudge | None = None) -> tuple[float, str]:
    """The answer judge's support for the draft's reply in the passages it cites (the claim judge's,
    for a yes/no reply, when given), and the sentence that gives it (computed once a draft: the
    workflow keeps both on the draft)."""
    if draft.support is not None:
        return draft.support, draft.supported_by
    return support_of(judge, decision.question, draft.text, decision.polar, draft.passages,
                      {c.number for c in draft.citations}, [subject(h.chunk) for h in draft.passages], claims)


def _contradicted(decision: Decision, text: str, sentence: str) -> str:
    """The reason an answer the sentence contradicts is not verified: the sentence, and for a yes/no
    reply the side it could not confirm."""
    if decision.polar and said_side(text):
        return UNCONFIRMED_SIDE.format(side=said_side(text), sentence=sentence)
    return CONTRADICTED.format(sentence=sentence)


def _subject_of(draft: Draft, sentence: str) -> str:
    """What the passage holding `sentence` is about (its title, section or file name)."""
    holding = next((h for h in draft.passages if sentence in h.chunk.text), None)
    return subject(holding.chunk) if holding is not None else ""
