"""Stage 3, draft: the passages packed into the prompt, and one short sentence from the model.

An Attempt says what the model reads (the best sentences of the top passages within `tokens`) and
the reminder closing the prompt; the Draft is the reply, cited in code, with the passages it was
read from (citation n is passages[n - 1]).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..types import Citation, Hit
from .generation import ChatModel, generate_answer, pack
from .prompt import ANSWER_REMINDER
from .select import Sentences, choose

PASSAGE_HEADER_TOKENS = 24  # the "<passage [n] source: ...>" line around each passage


@dataclass(frozen=True)
class Attempt:
    tokens: int  # passage tokens the model reads
    reminder: str = ANSWER_REMINDER
    focused: bool = False  # a second reading, of the sentence the judge finds answers the question best


@dataclass
class Draft:
    text: str
    citations: list[Citation]
    passages: list[Hit]
    attempt: Attempt
    seconds: float
    history: list[str] = field(default_factory=list)  # earlier attempts' replies, for the payload
    support: float | None = None  # the answer judge's support for this reply (judging.support), when judged
    supported_by: str = ""  # the passages' sentence that gives that support


def context(found: Sentences, model: ChatModel, question: str, tokens: int, passages: int, max_tokens: int) -> list[Hit]:
    """The top passages reduced to their best sentences within `tokens`, packed for the prompt."""
    selected = choose(found, model.count_tokens, tokens)
    return pack(question, selected, model, tokens + PASSAGE_HEADER_TOKENS * passages, max_tokens)


def draft(question: str, attempt: Attempt, found: Sentences, model: ChatModel, passages: int,
          max_tokens: int) -> Draft:
    packed = context(found, model, question, attempt.tokens, passages, max_tokens)
    answer = generate_answer(question, packed, model, max_tokens, reminder=attempt.reminder)
    return Draft(answer.text, answer.citations, packed, attempt, answer.timings["generate"])
