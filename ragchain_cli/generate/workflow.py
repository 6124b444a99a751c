"""The answer workflow behind `ragchain ask`, as a library: question in, one JSON-ready dict out.

retrieve (the search pipeline) -> the question's words weighed by IDF (the lexical index's doc
freqs) -> the best sentences of the top passages (select.py) -> the passages packed into the
prompt -> evidence: word coverage of the passages, of the best passage and of the best sentence, the
best sentence cosine, dense and BM25 scores (and, when it has a weight or is asked for,
the model's yes/no judgement read from its logits after the passages; evidence.py) -> abstain,
or answer one short sentence (a yes/no question's answer, when it takes no side, is asked again for
yes or no first; a side taken without saying so is said first, polar.py; any other answer that
holds little of the sentence best matching the question is asked again on that sentence and its
neighbours, and the second answer kept when it is drawn from that sentence more) -> the answer's
key content checked against the passages (support.py), and a yes/no answer that takes no side, or
says one and restates the other, is not verified either (polar.side_problem). Nothing is shown
before it is checked: the answer is returned whole, never streamed.

Payload fields (the contract with `eval --qa`): question, answer, answered, supported, citations,
not_verified (why "supported" is false, a phrase; null when it is true), hits (each search-hit
payload plus "text", the passage as the model read it for the answer given), timings (retrieve,
first_token and total counted from the question's start), and evidence.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ..retrieve.payload import hit_payload
from ..types import Answer, Hit
from .answer import generate_answer, pack
from .evidence import JUDGE_WEIGHTED, Evidence, question_weights, retrieval_evidence
from .prompt import YES_NO_REMINDER, SourceConsulted, build_judge_messages, without_citations
from .select import Sentences, choose, score_sentences
from .polar import is_polar, side_problem, state_side, takes_side
from .support import check_support, drawn_from, passage_remark, says_unknown
from .terms import TermStats

NOT_SAID = "The documents do not say."
NOT_SAID_NO_MATCH = "The documents do not say: no passage matches the question."
PASSAGE_HEADER_TOKENS = 24  # the "<passage [n] source: ...>" line around each passage


@dataclass
class AskOptions:
    max_tokens: int = 64  # one sentence is asked for; generation stops at its end
    context_tokens: int = 360  # passage tokens the model reads (prompt reading dominates CPU time)
    passages: int = 4  # top hits whose sentences compete for the context
    abstain: bool = True  # False: always answer (evidence is still reported)
    generate: bool = True  # False: retrieval only, the hits with their text
    judge: bool | None = None  # ask the model's yes/no judgement: None = only when it has a weight
    focus_tokens: int = 80  # the second, focused reading of an answer not drawn from the best sentence (0: none)


Progress = Callable[[str], None]
# An answer (not to a yes/no question) that holds less than this share of its own words from the
# sentence best matching the question is asked again on that sentence and its neighbours. Chosen on
# half A of the QA split; bench/RESULTS.md has both halves.
DRAWN_FROM_BEST = 0.5


class AskWorkflow:
    """One loaded pipeline and model answering many questions (the model's KV cache carries over)."""

    def __init__(self, pipeline, model, options: AskOptions | None = None) -> None:
        self.pipeline, self.model = pipeline, model
        self.options = options or AskOptions()
        lexical = pipeline.index.lexical
        self.stats = TermStats(total=lexical.count(), doc_freq=lexical.doc_freqs)
        dense = pipeline.retrievers.get("dense")
        self.encoder = getattr(dense, "encoder", None)

    def ask(self, question: str, on_progress: Progress | None = None) -> dict:
        """The answer payload; a question word no chunk holds is corrected first (retrieve/spelling.py),
        and the corrected question is what is searched, weighed and asked ("searched", "corrected")."""
        if not question.strip():
            return _blank(question)
        started = time.perf_counter()
        hits = self.pipeline.search(question)
        timings = {"retrieve": time.perf_counter() - started}
        spelling = self.pipeline.spelling_of(question)
        if spelling.changes and on_progress is not None:
            on_progress(spelling.note())
        payload = self._ask(spelling.text, hits, timings, started, on_progress)
        if spelling.changes:
            payload.update(searched=spelling.text, corrected=spelling.changes)
        return {**payload, "question": question}

    def _ask(self, question: str, hits: list[Hit], timings: dict, started: float, on_progress) -> dict:
        if not self.options.generate or self.model is None:
            return {"question": question, "hits": _hits(hits, with_text=True), "timings": _rounded(timings)}
        evidence, found = self.retrieval_signals(question, hits)
        packed = self._context(question, found)
        timings["select"] = time.perf_counter() - started - timings["retrieve"]
        if not packed:
            return _abstained(question, NOT_SAID_NO_MATCH, [], evidence, timings, started)
        if self.options.judge or (self.options.judge is None and JUDGE_WEIGHTED):
            judged = self.model.choice_logprobs(build_judge_messages(question, packed), ["yes", "no"])
            evidence.judge = judged["yes"] - judged["no"]
            timings["judge"] = time.perf_counter() - started - timings["retrieve"] - timings["select"]
        if self.options.abstain and not evidence.answerable():
            return _abstained(question, NOT_SAID, packed, evidence, timings, started)
        if on_progress is not None:  # only now does the model read anything
            tokens = sum(self.model.count_tokens(h.chunk.text) for h in packed)
            on_progress(f"reading {len(packed)} passage{'s' * (len(packed) != 1)} ({tokens} tokens) ...")
        return self._answer(question, packed, found, evidence, timings, started)

    def retrieval_signals(self, question: str, hits: list[Hit]) -> tuple[Evidence, Sentences]:
        """The evidence that needs no model, and the top passages' sentences scored against the
        question (the question's stems weighed by IDF; the cosine from the dense retriever's encoder)."""
        weights = question_weights(question, self.stats)
        found = score_sentences(question, hits, weights, self.encoder, self.options.passages)
        return retrieval_evidence(hits, weights, self.options.passages, found), found

    def _context(self, question: str, found: Sentences, tokens: int | None = None) -> list[Hit]:
        opts = self.options
        tokens = tokens or opts.context_tokens
        selected = choose(found, self.model.count_tokens, tokens)
        budget = tokens + PASSAGE_HEADER_TOKENS * opts.passages
        return pack(question, selected, self.model, budget, opts.max_tokens)

    def _generate(self, question: str, packed: list[Hit], found: Sentences) -> tuple[Answer, list[Hit]]:
        """The answer and the passages it was read from. A yes/no question's answer is asked again for
        yes or no first when it takes no side, and a side it takes without saying so is said first
        (polar.state_side); any other answer may get a second, focused reading (_refocused)."""
        opts = self.options
        answer = generate_answer(question, packed, self.model, opts.max_tokens)
        if not is_polar(question):
            return self._refocused(question, answer, packed, found)
        if not (says_unknown(answer.text) or takes_side(answer.text, question)):
            spent = answer.timings["generate"]
            answer = generate_answer(question, packed, self.model, opts.max_tokens, reminder=YES_NO_REMINDER)
            answer.timings["generate"] += spent
        if not says_unknown(answer.text):
            answer.text = state_side(answer.text, question)  # "Suharto resigned ..." -> "Yes, Suharto resigned ..."
        return answer, packed

    def _refocused(self, question: str, answer: Answer, packed: list[Hit],
                   found: Sentences) -> tuple[Answer, list[Hit]]:
        """A small model often answers with a neighbouring fact of the right passage ("Jean Drapeau"
        for the mayor, when the best sentence says "The mayor is Gérald Tremblay"). An answer that holds
        less than DRAWN_FROM_BEST of its own words from the sentence best matching the question is
        asked again on that sentence and its neighbours (focus_tokens), and the second answer is kept
        when more of it is drawn from that sentence."""
        best, tokens = found.best(), self.options.focus_tokens
        before = drawn_from(answer.text, question, best)
        if not tokens or not best or says_unknown(answer.text) or before >= DRAWN_FROM_BEST:
            return answer, packed
        focused = self._context(question, found, tokens)
        second = generate_answer(question, focused, self.model, self.options.max_tokens)
        second.timings["generate"] += answer.timings["generate"]
        if says_unknown(second.text) or drawn_from(second.text, question, best) <= before:
            answer.timings["generate"] = second.timings["generate"]
            return answer, packed
        return second, focused

    def _answer(self, question, packed, found: Sentences, evidence: Evidence, timings, started) -> dict:
        before = time.perf_counter() - started
        answer, packed = self._generate(question, packed, found)
        timings.update(first_token=before + answer.timings["generate"], generate=answer.timings["generate"])
        if says_unknown(answer.text):  # the model itself found no answer in the passages
            return {**_abstained(question, NOT_SAID, packed, evidence, timings, started), "draft": answer.text}
        support = check_support(answer.text, question, [h.chunk.text for h in packed], self.stats)
        why = side_problem(answer.text, question) or passage_remark(answer.text) or support.reason()
        citations = answer.citations
        if why:  # never shown as cited fact: no [n] in the text, the passages listed as consulted
            answer.text = without_citations(answer.text)
            citations = [SourceConsulted(c.number, c.chunk_id, c.doc_id, c.source, c.page) for c in citations]
        timings["total"] = time.perf_counter() - started
        return {"question": question, "answer": answer.text, "answered": True, "supported": not why,
                "not_verified": why or None, "unsupported_terms": support.missing + support.apart,
                "citations": [_citation(c) for c in citations],
                "hits": _hits(packed, with_text=True), "timings": _rounded(timings),
                "evidence": evidence.payload()}

    def ask_many(self, questions: Iterable[str], on_progress=None) -> Iterator[dict]:
        for question in questions:
            yield self.ask(question, on_progress=on_progress)


@contextmanager
def open_workflow(settings, options: AskOptions | None = None, search_options=None,
                  on_progress: Progress | None = None) -> Iterator[AskWorkflow]:
    """The index, search pipeline and (unless options.generate is False) model named by `settings`."""
    from ..retrieve.pipeline import SearchPipeline, search_options as options_from
    from ..stores.index import Index

    options = options or AskOptions()
    index = Index(Path(settings.index))
    try:
        pipeline = SearchPipeline(index, search_options or options_from(settings))
        model = load_model(settings, on_progress) if options.generate else None
        yield AskWorkflow(pipeline, model, options)
    finally:
        index.close()


def load_model(settings, on_progress: Progress | None = None):
    from .llama import LocalLLM
    from .models import resolve_model

    started = time.perf_counter()
    model = LocalLLM(resolve_model(settings.llm or None), n_ctx=settings.n_ctx)
    if on_progress is not None:
        on_progress(f"model {model.path.name} loaded in {time.perf_counter() - started:.1f}s")
    return model


def ask_payloads(settings, questions: Iterable[str], options: AskOptions | None = None,
                 on_progress: Progress | None = None) -> Iterator[dict]:
    """One payload per question, in order (a blank question gets an unanswered, empty one)."""
    with open_workflow(settings, options, on_progress=on_progress) as workflow:
        yield from workflow.ask_many(questions, on_progress=on_progress)


def _citation(c) -> dict:
    return {"number": c.number, "chunk_id": c.chunk_id, "doc_id": c.doc_id, "source": c.source, "page": c.page,
            "cited": getattr(c, "cited", True)}


def _hits(hits: list[Hit], with_text: bool) -> list[dict]:
    return [{**hit_payload(i, h), **({"text": h.chunk.text} if with_text else {})} for i, h in enumerate(hits, 1)]


def _rounded(timings: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 4) for k, v in timings.items()}


def _blank(question: str) -> dict:
    return {"question": question, "answer": "", "answered": False, "supported": None, "citations": [], "hits": [],
            "timings": {"retrieve": 0.0, "first_token": 0.0, "total": 0.0}}


def _abstained(question: str, text: str, closest: list[Hit], evidence: Evidence, timings: dict, started) -> dict:
    timings = {**timings, "first_token": time.perf_counter() - started, "total": time.perf_counter() - started}
    return {"question": question, "answer": text, "answered": False, "supported": None, "citations": [],
            "hits": _hits(closest, with_text=True), "timings": _rounded(timings), "evidence": evidence.payload()}
