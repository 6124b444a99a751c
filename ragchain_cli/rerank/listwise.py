"""llm: RankGPT-style listwise reranking with the local GGUF chat model (Sun et al., 2023).

The model sees a window of numbered passages and the query, and answers with a permutation
("[3] > [1] > [2]"). Windows slide from the back of the list to the front (default window 20,
step 10), so good passages found late bubble up. Passages are truncated to a token budget so
the whole window fits the context. The reply is parsed leniently: digits only, out-of-range
and repeated numbers dropped, passages the model left out appended in their original order.
Numbers map back to hits by identifier (position in the window), never by comparing text.
Scores are n - final position (higher is better). The prompt is RankGPT's, example included: the
bundled 135M/0.5B models mostly copy that example ("[1] > [2]"), which leaves the order as it
was, so this family needs a stronger GGUF (--llm PATH) to help (see bench/RESULTS.md).
"""

from __future__ import annotations

import re
from typing import Callable

from ..config import DEFAULTS
from ..errors import UsageError
from ..types import Hit
from ._common import passage_text, reranked

SYSTEM = "You are RankGPT, an intelligent assistant that can rank passages based on their relevancy to the query."
INTRO = ("I will provide you with {n} passages, each indicated by a numerical identifier []. "
         "Rank the passages based on their relevance to the search query: {query}.")
OUTRO = ("Search Query: {query}.\nRank the {n} passages above based on their relevance to the search query. "
         "All the passages should be included and listed using identifiers, in descending order of relevance. "
         "The output format should be [] > [], e.g., [1] > [2]. Only respond with the ranking results, "
         "do not say any word or explain.")
TOKENS_PER_ID = 5  # "[12] > " is at most five tokens for the tokenizers we ship
CONTEXT_MARGIN = 48  # chat-template tokens and tokenizer boundary effects

RankWindow = Callable[[list[int]], list[int]]


def parse_permutation(text: str, n: int) -> list[int]:
    """0-based order of n items from a reply like "[2] > [1] > [3]"; always a full permutation."""
    order: list[int] = []
    for digits in re.findall(r"\d+", text):
        item = int(digits) - 1
        if 0 <= item < n and item not in order:
            order.append(item)
    return order + [item for item in range(n) if item not in order]


def windows(n: int, window: int, step: int) -> list[tuple[int, int]]:
    """[start, end) spans from the back of an n-list to its front."""
    if window < 1 or step < 1:
        raise UsageError(f"the llm reranker needs window >= 1 and step >= 1, got {window} and {step}")
    if n <= 0:
        return []
    spans, end, start = [], n, max(0, n - window)
    while True:
        spans.append((start, end))
        if start == 0:
            return spans
        end, start = end - step, max(0, start - step)


def sliding_order(n: int, window: int, step: int, rank_window: RankWindow) -> list[int]:
    """Order of n items after ranking each window; rank_window(items) returns a permutation of
    positions 0..len(items)-1 (best first), parsed by parse_permutation."""
    order = list(range(n))
    for start, end in windows(n, window, step):
        current = order[start:end]
        permutation = rank_window(current)
        if sorted(permutation) != list(range(len(current))):
            raise UsageError(f"ranking a window must return a permutation of 0..{len(current) - 1}")
        order[start:end] = [current[i] for i in permutation]
    return order


def truncate(text: str, budget: int, count: Callable[[str], int]) -> str:
    """The longest word prefix of text that is at most `budget` tokens."""
    words = text.split()
    if count(" ".join(words)) <= budget:
        return " ".join(words)
    low, high = 0, len(words)
    while low < high:
        middle = (low + high + 1) // 2
        if count(" ".join(words[:middle])) <= budget:
            low = middle
        else:
            high = middle - 1
    return " ".join(words[:low])


class ListwiseReranker:
    name = "llm"

    def __init__(self, llm="", n_ctx: int = DEFAULTS.n_ctx, window: int = 20, step: int = 10,
                 passage_tokens: int = 128, **_options) -> None:
        from ..llm import open_llm

        windows(1, window, step)  # validates
        self.llm = open_llm(llm, n_ctx)  # local (llama.cpp) or served (--llm URL)
        self.window, self.step, self.passage_tokens = window, step, passage_tokens

    def messages(self, query: str, passages: list[str]) -> list[dict]:
        n = len(passages)
        numbered = "\n".join(f"[{i}] {text}" for i, text in enumerate(passages, start=1))
        user = f"{INTRO.format(n=n, query=query)}\n\n{numbered}\n\n{OUTRO.format(n=n, query=query)}"
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]

    def budget(self, query: str, n: int) -> int:
        """Tokens each of n passages may use so that prompt and reply fit the context."""
        skeleton = self.messages(query, [""] * n)
        fixed = sum(self.llm.count_tokens(m["content"]) for m in skeleton) + CONTEXT_MARGIN
        free = self.llm.n_ctx - fixed - TOKENS_PER_ID * n
        if free < n * 8:
            raise UsageError(f"the query is too long to rank {n} passages in a {self.llm.n_ctx}-token context",
                             "raise --n-ctx or lower the window")
        return min(self.passage_tokens, free // n)

    def rank_window(self, query: str, texts: list[str]) -> list[int]:
        budget = self.budget(query, len(texts))
        passages = [truncate(t, budget, self.llm.count_tokens) for t in texts]
        reply = self.llm.chat(self.messages(query, passages), max_tokens=TOKENS_PER_ID * len(texts) + 8)
        return parse_permutation(reply, len(texts))

    def rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
        texts = [passage_text(h) for h in hits]
        order = sliding_order(len(hits), self.window, self.step,
                              lambda items: self.rank_window(query, [texts[i] for i in items]))
        scores = [0.0] * len(hits)
        for position, item in enumerate(order):
            scores[item] = float(len(hits) - position)
        return reranked(hits, scores)
