"""Query likelihood with llama.cpp: mean log p(continuation tokens | prompt), no llama_cpp type leaves.

The weights come from generate.llama's per-process cache; scoring runs in a second, small
llama.cpp context of our own, so the KV cache of the chat model is never disturbed.

What makes it cheap (see bench/RESULTS.md):
- logits are requested for the continuation's positions only (Llama(logits_all=True) or
  create_completion(echo=True, logprobs=...) materialise a vocabulary-sized row for every prompt
  token and turn it into Python lists);
- the prompt part before the passage is evaluated once per process and stays in the KV cache
  (positions 0..P-1); each passage is decoded after it and then removed (llama_memory_seq_rm);
- passages are truncated to a token budget, since cost grows with their length;
- each passage is one llama_decode call over all its tokens (n_threads_batch = every core).
Packing several passages as separate sequences into one decode was measured 15-25% slower on
this 2-core machine (the unified KV cache makes every token attend over all sequences' cells),
so it is not done. Flash attention stays off: the scores then equal llama.cpp's own
logits_all=True numbers exactly (tests/test_rerank_upr.py).
In a process that used torch first (dense retrieval), OMP_WAIT_POLICY=PASSIVE must be set before
torch is imported, or torch's spinning OpenMP workers make this ~20x slower.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from ..generate.llama import GenerationError, _import_llama_cpp, _load, default_threads

_SEQ = 0


class LikelihoodScorer:
    """score(bodies, continuation) -> mean log-prob of continuation after prefix + each body."""

    def __init__(self, model_path: Path, prefix: str, n_ctx: int, body_tokens: int, tail_tokens: int = 256) -> None:
        self._cpp = _import_llama_cpp()
        from llama_cpp import _internals

        threads, batch_threads = default_threads()
        self._llama = _load(model_path, n_ctx, False, threads, batch_threads)
        self.body_tokens, self.tail_tokens = body_tokens, tail_tokens
        self._prefix = self.tokenize(prefix, bos=True)
        size = len(self._prefix) + body_tokens + tail_tokens
        params = self._cpp.llama_context_default_params()
        params.n_ctx = params.n_batch = params.n_ubatch = size
        params.n_seq_max = 1
        params.n_threads, params.n_threads_batch = threads, batch_threads
        params.no_perf = True
        params.flash_attn_type = self._cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
        self._ctx = _internals.LlamaContext(model=self._llama._model, params=params, verbose=False)
        self._batch = _internals.LlamaBatch(n_tokens=size, embd=0, n_seq_max=1, verbose=False)
        self._n_vocab = self._llama.n_vocab()
        self._lock = threading.Lock()
        self._decode(self._prefix, 0, outputs=())

    def tokenize(self, text: str, bos: bool = False) -> list[int]:
        return list(self._llama.tokenize(text.encode("utf-8"), add_bos=bos, special=False))

    def _decode(self, tokens: list[int], start: int, outputs: range | tuple) -> None:
        batch = self._batch.batch
        batch.n_tokens = len(tokens)
        for i, token in enumerate(tokens):
            batch.token[i], batch.pos[i] = token, start + i
            batch.seq_id[i][0], batch.n_seq_id[i] = _SEQ, 1
            batch.logits[i] = i in outputs
        code = self._cpp.llama_decode(self._ctx.ctx, batch)
        if code != 0:
            raise GenerationError(f"llama.cpp could not evaluate the reranking prompt (code {code})",
                                "lower the passage budget or use another model")

    def _row_logprob(self, index: int, target: int) -> float:
        row = np.ctypeslib.as_array(self._ctx.get_logits_ith(index), shape=(self._n_vocab,))
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
            self._ctx.kv_cache_seq_rm(_SEQ, len(self._prefix), -1)

    def score(self, bodies: list[str], body_suffix: str, continuation: str) -> list[float]:
        """Each body truncated to body_tokens, then body_suffix, then the scored continuation."""
        suffix = self.tokenize(body_suffix)
        tail = self.tokenize(continuation)[: max(1, self.tail_tokens - len(suffix))]
        if not tail:
            return [0.0] * len(bodies)
        with self._lock:
            return [self.score_one(self.tokenize(b)[: self.body_tokens] + suffix, tail) for b in bodies]
