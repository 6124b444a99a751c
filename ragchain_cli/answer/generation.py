"""One answer from the local model: pack the passages (`pack`), generate one cited sentence
(`generate_answer`). The returned Answer.hits are the packed passages, in prompt order, so citation
number n is Answer.hits[n - 1]."""

from __future__ import annotations

import time
from typing import Callable, Protocol

from ..errors import UsageError
from ..types import Answer, Hit
from ..text.replies import NO_ANSWER, shorten, strip_preamble
from ..text.sentences import first_sentence
from .prompt import ANSWER_REMINDER, build_messages, extract_citations, pack_context

PROMPT_MARGIN = 48  # chat-template tokens around the messages, plus slack
STOP = ["<context>", "</context>", "<passage", "\n\n"]  # small models sometimes start reciting the prompt


class ChatModel(Protocol):
    """What the answer path needs from a model (LocalLLM provides it)."""

    @property
    def n_ctx(self) -> int: ...

    def count_tokens(self, text: str) -> int: ...

    def chat(self, messages: list[dict], max_tokens: int, temperature: float = 0.0,
             stop: list[str] | None = None, on_token: Callable[[str], None] | None = None) -> str: ...


def context_budget(question: str, llm: ChatModel, max_tokens: int) -> int:
    """Tokens left for passages once the prompt scaffolding and the reply are reserved."""
    scaffold = sum(llm.count_tokens(m["content"]) for m in build_messages(question, []))
    budget = llm.n_ctx - max_tokens - scaffold - PROMPT_MARGIN
    if budget <= 0:
        raise UsageError(
            f"the context window ({llm.n_ctx} tokens) leaves no room for passages",
            "raise --n-ctx or lower the answer length",
        )
    return budget


def pack(question: str, hits: list[Hit], llm: ChatModel, budget_tokens: int | None, max_tokens: int) -> list[Hit]:
    """The passages the prompt will hold, numbered in this order (none when there are no hits)."""
    if not question.strip():
        raise UsageError("the question is empty", "ask something, e.g. ragchain ask \"what is ...?\"")
    if not hits:
        return []
    budget = budget_tokens if budget_tokens is not None else context_budget(question, llm, max_tokens)
    packed = pack_context(hits, budget, llm.count_tokens)
    if not packed:
        raise UsageError(
            f"no retrieved passage fits in the {budget}-token context budget",
            "raise --n-ctx or re-ingest with a smaller --chunk-size",
        )
    return packed


def generate_answer(question: str, packed: list[Hit], llm: ChatModel, max_tokens: int,
                    on_token: Callable[[str], None] | None = None, reminder: str = ANSWER_REMINDER) -> Answer:
    """One short sentence from the packed passages (preamble stripped, streamed as it is made), cited."""
    stream = SentenceStream(on_token)
    timings = _generate_timed(llm, build_messages(question, packed, reminder), max_tokens, stream)
    text, citations = extract_citations(stream.close(), packed, question)
    return Answer(question=question, text=text.strip() or NO_ANSWER, citations=citations, hits=packed, timings=timings)


class _Enough(Exception):
    """The first sentence is complete: stop generating."""


def _generate_timed(llm: ChatModel, messages: list[dict], max_tokens: int, stream: SentenceStream) -> dict[str, float]:
    """Greedy generation into `stream` until its sentence ends, timing the first piece and the whole."""
    first: list[float] = []

    def relay(piece: str) -> None:
        if not first:
            first.append(time.perf_counter())
        stream.feed(piece)
        if stream.done:
            raise _Enough

    started = time.perf_counter()
    try:
        reply = llm.chat(messages, max_tokens=max_tokens, temperature=0.0, stop=STOP, on_token=relay)
        if not first and reply:  # a model that returns its reply without streaming it
            first.append(time.perf_counter())
            stream.feed(reply)
    except _Enough:
        pass
    finished = time.perf_counter()
    return {"first_token": (first[0] if first else finished) - started, "generate": finished - started}


class SentenceStream:
    """Collects streamed pieces and reports `done` once the first sentence has ended (the text
    goes on after it), so generation can stop there; `close` gives that sentence, preamble stripped."""

    def __init__(self, emit: Callable[[str], None] | None = None) -> None:
        self.emit, self.raw, self.done = emit, "", False

    def feed(self, piece: str) -> None:
        self.raw += piece
        if self.emit is not None:
            self.emit(piece)
        if piece.strip() or "\n" in piece:
            self.done = first_sentence(strip_preamble(self.raw))[1]

    def close(self) -> str:
        return shorten(self.raw)
