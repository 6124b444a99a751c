"""The answer path behind `ragchain ask`: a question passes through each stage once, in order.

    question + search -> gather (gather.py: passages, retrieval signals)  -> Gathered
                      -> decide (decide.py: answerable? yes/no?)          -> Decision
                      -> draft  (draft.py: prompt + model)                -> Draft
                      -> verify (verify.py: drawn from the passages? side? reason) -> Verdict
                      -> quote  (quote.py: an unverified reply gives way to the passage's sentence)
                      -> payload (payload.py: the JSON the terminal also renders)
A second reading (the yes/no reminder, or a focused context) is this loop's second turn, never a
nested call. docs/ANSWER-PATH.md says which stage decides each verdict a user can see.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Iterator

from ..config import DEFAULTS
from ..text.words import TermStats
from ..types import Hit
from ..judge.claims import ClaimJudge, load_claim_judge
from ..judge.model import Judge, load_judge
from ..llm.backend import describe
from .generation import ChatModel
from .decide import decide
from .draft import Attempt, Draft, draft
from .gather import Search, Searched, gather, question_weights, subject
from .payload import answered, blank, quoted_closest, refused, retrieved, with_draft
from .quote import CLOSEST, Quoted, closest, quote, quoted
from .select import Encoder, score_sentences
from .verify import judged_support, keep, next_attempt, verify
from .versions import NO_VERSIONS, Lookup, reconcile, with_versions

Progress = Callable[[str], None]


@dataclass
class AskOptions:
    """ask's options; the defaults are Settings' (config.py), the one place for every default."""

    max_tokens: int = DEFAULTS.max_tokens  # one sentence is asked for; generation stops at its end
    context_tokens: int = DEFAULTS.context_tokens  # passage tokens the model reads (prompt reading dominates)
    passages: int = DEFAULTS.passages  # top hits whose sentences compete for the context
    abstain: bool = DEFAULTS.abstain  # False: always answer (evidence is still reported)
    generate: bool = True  # False: retrieval only, the hits with their text
    focus_tokens: int = DEFAULTS.focus_tokens  # the focused second reading (0: none)
    versions: str = DEFAULTS.versions  # newest | all | latest: which version of a document answers (versions.py)
    verdicts: str = DEFAULTS.verdicts  # judge | both: the judge alone, or with the word checks (verify.py)
    judge_answers: float = DEFAULTS.judge_answers  # the judge's bar for "the documents answer it"
    judge_supports: float = DEFAULTS.judge_supports  # the judge's bar for "verified"
    claim_judge: bool = DEFAULTS.claim_judge  # verify reads the three-way claim judge too (judge/claims.py)
    quote_closest: bool = DEFAULTS.quote_closest  # a refused question near its passages: the closest sentence quoted
    near_yes_no: bool = DEFAULTS.near_yes_no  # a yes/no question near its passages: drafted under the signals' bar


class AskWorkflow:
    """Answers questions with one search, term statistics, encoder and (loaded on first need) model."""

    def __init__(self, search: Search, stats: TermStats | None, encoder: Encoder | None,
                 load_model: Callable[[], ChatModel], options: AskOptions | None = None,
                 versions: Lookup = NO_VERSIONS, judge: Judge | None = None,
                 claims: ClaimJudge | None = None) -> None:
        self.search, self.stats, self.encoder, self._load = search, stats, encoder, load_model
        self.judge = judge or load_judge()  # the answer judge (judge/model.py), shipped with the package
        self.options, self._model = options or AskOptions(), None
        self.claims = (claims or load_claim_judge()) if self.options.claim_judge else None
        self.versions = versions  # the index's version groups, asked through two callables

    def model(self) -> ChatModel:
        if self._model is None:
            self._model = self._load()
        return self._model

    def ask(self, question: str, on_progress: Progress | None = None) -> dict:
        if not question.strip():
            return blank(question)
        opts, started = self.options, time.perf_counter()
        gathered = gather(question, self._newest, self.stats, self.encoder, opts.passages, self.judge)
        timings = {"retrieve": time.perf_counter() - started}
        if gathered.searched.note and on_progress is not None:
            on_progress(gathered.searched.note)
        if not opts.generate:
            return self._asked(retrieved(gathered.question, gathered.searched.hits, timings), gathered, question)
        decision = decide(gathered, opts.abstain, opts.verdicts, opts.judge_answers, opts.near_yes_no)
        if not decision.answerable:
            near = self._closest(decision) if decision.near and opts.quote_closest else None
            payload = quoted_closest(decision, near, _total(timings, started)) if near else \
                refused(decision, decision.refusal, gathered.found.top, _total(timings, started))
            return self._asked(payload, gathered, question)
        model = self.model()
        if on_progress is not None:
            top = len(gathered.found.top)  # the context takes their best sentences: some may give none
            on_progress(f"reading the best sentences of the top {top} passage{'s' * (top != 1)} ...")
        drafted = self._drafted(decision, gathered, model)
        verdict = verify(decision, drafted, self.stats, self.judge, opts.judge_supports, opts.verdicts, self.claims)
        quoted = None if verdict.supported is not False or decision.polar else \
            quote(gathered.found, drafted.passages, opts.judge_answers)
        timings["generate"] = drafted.seconds
        if quoted is not None:
            payload = answered(decision, replace(drafted, passages=quoted.passages), quoted.verdict, _total(timings, started))
            payload = with_draft(payload, verdict.text, verdict.reason)
        else:
            payload = answered(decision, drafted, verdict, _total(timings, started))
        return self._asked({**payload, "llm": describe(model)}, gathered, question)

    def _closest(self, decision) -> Quoted | None:
        """The passages' sentence closest to a refused question in meaning, quoted (quote.closest)."""
        found = decision.gathered.found
        if self.encoder is None:
            return None
        k = closest(found, decision.question, self.encoder, [subject(h.chunk) for h in found.top])
        return None if k is None else quoted(found, list(found.top), k, CLOSEST)

    def _drafted(self, decision, gathered, model: ChatModel) -> Draft:
        """The model's reply, read a second time when the first calls for it (verify.next_attempt)."""
        opts = self.options
        attempt, drafted = Attempt(opts.context_tokens), None
        while attempt is not None:
            reply = draft(decision.question, attempt, gathered.found, model, opts.passages, opts.max_tokens)
            reply.support, reply.supported_by = judged_support(self.judge, decision, reply, self.claims)
            drafted = reply if drafted is None else keep(drafted, reply)
            attempt = next_attempt(decision, drafted, opts.focus_tokens, opts.judge_supports)
        return drafted

    # -- versions (issue 32): the search's hits reconciled across versions before anything reads them,
    # and the payload told which groups were reconciled and what an older version said (versions.py)
    def _newest(self, question: str) -> Searched:
        searched = self.search(question)
        chosen = reconcile(searched.text, searched.hits, self.options.versions, self.versions)
        return replace(searched, hits=chosen.answer_from, versions=chosen)

    def _asked(self, payload: dict, gathered, question: str) -> dict:
        versions = gathered.searched.versions
        payload = with_versions(payload, versions, lambda hit: best_sentence(gathered.question, hit, self.stats,
                                                                              self.encoder)) if versions else payload
        return _asked(payload, gathered, question)
    # -- end of versions

    def ask_many(self, questions: Iterable[str], on_progress: Progress | None = None) -> Iterator[dict]:
        for question in questions:
            yield self.ask(question, on_progress=on_progress)


def best_sentence(question: str, hit: Hit, stats: TermStats | None, encoder: Encoder | None) -> str:
    """The passage's sentence that best matches the question, scored as the context's sentences are."""
    return score_sentences(question, [hit], question_weights(question, stats), encoder, 1).best()


def _total(timings: dict, started: float) -> dict:
    total = time.perf_counter() - started
    return {**timings, "total": total}  # no first_token: ask streams nothing, it shows a verified answer whole


def _asked(payload: dict, gathered, question: str) -> dict:
    """The payload under the question as asked, with the spelling it was searched under."""
    if gathered.searched.corrected:
        payload.update(searched=gathered.searched.text, corrected=gathered.searched.corrected)
    return {**payload, "question": question}
