"""Token log-probabilities for LocalLLM.score: mean log p(continuation | prefix + body), fast.

Only llama.cpp's public C API is used (llama_init_from_model, llama_batch_init, llama_decode,
llama_get_logits_ith, llama_memory_seq_rm); no llama_cpp type leaves this module. Scoring
runs in a second, small llama.cpp context over the shared weights, so the KV cache of the
chat model is never disturbed.

What makes it cheap (see bench/RESULTS.md, upr):
- logits are requested for the continuation's positions only (Llama(logits_all=True) or
  create_completion(echo=True, logprobs=...) materialise a vocabulary-sized row for every prompt
  token and turn it into Python lists);
- the prefix is evaluated once per scorer and stays in the KV cache (positions 0..P-1); each
  body is decoded after it and then removed;
- bodies are truncated to a token budget, since cost grows with their length;
- each body is one llama_decode call over all its tokens (n_threads_batch = every core).
Packing several bodies as separate sequences into one decode was measured 15-25% slower on
this 2-core machine (the unified KV cache makes every token attend over all sequences' cells),
so it is not done. Flash attention stays off: the scores then equal llama.cpp's own
logits_all=True numbers exactly (tests/test_rerank_upr.py).
In a process that used torch first (dense retrieval), OMP_WAIT_POLICY=PASSIVE must be set before
torch is imported, or torch's spinning OpenMP workers make this ~20x slower.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np

from ..errors import RagchainError

SEQ = 0


class ScoringError(RagchainError):
    """llama.cpp could not evaluate a scoring prompt."""


class PrefixScorer:
    """A small llama.cpp context holding one prefix in its KV cache; score() decodes bodies after it."""

    def __init__(self, cpp: Any, llama: Any, tokenize: Callable[[str, bool], list[int]], prefix: str,
                 body_tokens: int, tail_tokens: int, threads: tuple[int, int]) -> None:
        self._cpp, self.tokenize = cpp, tokenize
        self.body_tokens, self.tail_tokens = body_tokens, tail_tokens
        self._prefix = tokenize(prefix, True)
        size = len(self._prefix) + body_tokens + tail_tokens
        params = cpp.llama_context_default_params()
        params.n_ctx = params.n_batch = params.n_ubatch = size
        params.n_seq_max = 1
        params.n_threads, params.n_threads_batch = threads
        params.no_perf = True
        params.flash_attn_type = cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
        self._ctx = cpp.llama_init_from_model(llama.model, params)
        if not self._ctx:
            raise ScoringError("llama.cpp could not create a scoring context", "lower the passage budget")
        self._memory = cpp.llama_get_memory(self._ctx)
        self._batch = cpp.llama_batch_init(size, 0, 1)
        self._n_vocab = llama.n_vocab()
        self._lock = threading.Lock()
        self._decode(self._prefix, 0, outputs=())

    def close(self) -> None:
        """Free the context (before its model: the model cache closes in reverse load order)."""
        if self._ctx:
            self._cpp.llama_batch_free(self._batch)
            self._cpp.llama_free(self._ctx)
            self._ctx = None

    def _decode(self, tokens: list[int], start: int, outputs: range | tuple) -> None:
        batch = self._batch
        batch.n_tokens = len(tokens)
        for i, token in enumerate(tokens):
            batch.token[i], batch.pos[i] = token, start + i
            batch.seq_id[i][0], batch.n_seq_id[i] = SEQ, 1
            batch.logits[i] = i in outputs
        code = self._cpp.llama_decode(self._ctx, batch)
        if code != 0:
            raise ScoringError(f"llama.cpp could not evaluate the scoring prompt (code {code})",
                               "lower the passage budget or use another model")

    def _row_logprob(self, index: int, target: int) -> float:
        row = np.ctypeslib.as_array(self._cpp.llama_get_logits_ith(self._ctx, index), shape=(self._n_vocab,))
        top = float(row.max())
        return float(row[target]) - top - float(np.log(np.exp(row - top).sum()))

    def score_one(self, body: list[int], continuation: list[int]) -> float:
        """Decode body + continuation after the cached prefix; mean log p of the continuation."""
        tokens = body + continuation
        first = len(body) - 1  # the position whose logits predict continuation[0]
        self._decode(tokens, len(self._prefix), outputs=range(first, len(tokens) - 1))
        try:
            return float(np.mean([self._row_logprob(first + j, target) for j, target in enumerate(continuation)]))
        finally:
            self._cpp.llama_memory_seq_rm(self._memory, SEQ, len(self._prefix), -1)

    def score(self, bodies: list[str], body_suffix: str, continuation: str) -> list[float]:
        """Each body truncated to body_tokens, then body_suffix, then the scored continuation."""
        suffix = self.tokenize(body_suffix, False)
        tail = self.tokenize(continuation, False)[: max(1, self.tail_tokens - len(suffix))]
        if not tail:
            return [0.0] * len(bodies)
        with self._lock:
            return [self.score_one(self.tokenize(b, False)[: self.body_tokens] + suffix, tail) for b in bodies]
