"""LocalLLM: a thin wrapper over llama-cpp-python; no llama_cpp type leaves this module.

llama_cpp is imported on first use. A model is loaded once per process and shared (the one
model cache, ragchain_cli.loaded), keyed by (path, n_ctx, logits_all). Token log-probabilities
for likelihood scoring (the upr reranker) come from LocalLLM.score (llm/scoring.py).

Threads, measured on a busy 2-core machine with SmolLM2-135M (1,131-token prompt, 96 new tokens):
- one other CPU-bound process (load ~2): prompt eval 1 thread ~215 tok/s, 2 threads ~300-420;
  generation 1 thread a steady 125-145 tok/s, 2 threads erratic (45-155, median 28 once).
- two others (load ~4): prompt eval 1 thread 145-217 tok/s, 2 threads 105-213; generation
  1 thread 135-145 tok/s, 2 threads 50-60 with OMP_WAIT_POLICY=PASSIVE and 10 with the default
  spinning workers.
So prompts use every core (n_threads_batch = cpu_count: the big win when the machine is not
oversubscribed) and generation uses half of them (n_threads = cpu_count // 2, at least 1).
OMP_WAIT_POLICY defaults to PASSIVE (set just before the first import of llama_cpp, never
overriding the user's value; it only takes effect if libgomp was not already started) so idle
OpenMP workers sleep instead of spinning against other busy processes.
Flash attention stays off: it read qwen2.5-coder-0.5b's 520-token prompt in 0.93-0.97x the time,
but its different rounding changed 3 of 25 half-A answers and made SmolLM2-135M's query expansion
overrun its JSON (bench/RESULTS.md, issue 13, session 7); a few percent is not worth that churn.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Callable, Iterator

from ..config import DEFAULTS
from ..errors import DependencyMissing, RagchainError, UsageError
from ..loaded import load_once

INSTALL_HINT = "pip install llama-cpp-python (it builds llama.cpp from source and needs a C/C++ compiler and cmake)"
DEFAULT_N_CTX = DEFAULTS.n_ctx  # config.Settings holds it



class GenerationError(RagchainError):
    """The model produced output that cannot be used (unparseable JSON, prompt too long)."""


def default_threads() -> tuple[int, int]:
    """(generation threads, prompt-processing threads) for this machine; see the module doc."""
    cpus = os.cpu_count() or 1
    return max(1, cpus // 2), cpus


def _import_llama_cpp() -> Any:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import llama_cpp
    except ImportError as exc:
        raise DependencyMissing(f"local generation needs llama-cpp-python ({exc})", INSTALL_HINT) from None
    return llama_cpp


def _load(path: Path, n_ctx: int, logits_all: bool, n_threads: int, n_threads_batch: int) -> Any:
    def load() -> Any:
        llama_cpp = _import_llama_cpp()
        try:
            return llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads,
                                   n_threads_batch=n_threads_batch, logits_all=logits_all, verbose=False)
        except ValueError as exc:
            raise GenerationError(f"llama.cpp could not load {path}: {exc}", "check that it is a valid GGUF model") from None

    return load_once(("llama", str(path.resolve()), n_ctx, logits_all), load, close=lambda model: model.close())


def _too_long(exc: ValueError) -> GenerationError:
    return GenerationError(
        f"generation failed: {exc}", "the prompt is too long for the context: raise --n-ctx or retrieve fewer passages"
    )


def _json_object(text: str) -> dict:
    """Parse a JSON object, tolerating code fences or chatter around it."""
    candidates = [text.strip()]
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if match:
        candidates.append(match.group(0))
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    raise GenerationError(
        f"the model did not return a JSON object: {text[:200]!r}",
        "raise max_tokens (the output may be cut off) or use a larger model",
    )


def json_reply(text: str, schema: dict) -> dict:
    """A reply asked for as JSON under `schema`, parsed, with every required key there."""
    value = _json_object(text)
    missing = [key for key in schema.get("required", []) if key not in value]
    if missing:
        raise GenerationError(f"the model's JSON lacks required key(s) {', '.join(missing)}",
                              "raise max_tokens or use a larger model")
    return value


class LocalLLM:
    """A local GGUF chat model. Cheap to construct again: the weights are shared per process."""

    def __init__(
        self,
        model_path: str | Path,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        n_threads_batch: int | None = None,
        logits_all: bool = False,
    ) -> None:
        if n_ctx < 256:
            raise UsageError(f"n_ctx must be at least 256, got {n_ctx}", f"pass --n-ctx {DEFAULT_N_CTX}")
        gen_threads, batch_threads = default_threads()
        self.path = Path(model_path)
        self._llama = _load(self.path, n_ctx, logits_all, n_threads or gen_threads, n_threads_batch or batch_threads)

    @property
    def n_ctx(self) -> int:
        return int(self._llama.n_ctx())

    def describe(self) -> dict:
        """What drafted, for the JSON."""
        return {"backend": "local", "path": str(self.path), "model": self.path.stem}

    def tokenize(self, text: str, bos: bool = False) -> list[int]:
        return list(self._llama.tokenize(text.encode("utf-8"), add_bos=bos, special=False))

    def score(self, prefix: str, bodies: list[str], body_suffix: str, continuation: str,
              body_tokens: int = 128, tail_tokens: int = 256) -> list[float]:
        """For each body: the mean token log-probability of `continuation` after prefix + body (cut to
        body_tokens tokens) + body_suffix. The prefix is evaluated once per process and kept."""
        from .scoring import PrefixScorer

        key = ("llama-scorer", str(self.path.resolve()), prefix, body_tokens, tail_tokens)
        scorer = load_once(key, lambda: PrefixScorer(_import_llama_cpp(), self._llama, self.tokenize, prefix,
                                                     body_tokens, tail_tokens, default_threads()),
                           close=lambda s: s.close())
        return scorer.score(bodies, body_suffix, continuation)

    def count_tokens(self, text: str) -> int:
        return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def _complete(self, messages: list[dict], max_tokens: int, **options: Any) -> Any:
        try:
            return self._llama.create_chat_completion(messages=messages, max_tokens=max_tokens, **options)
        except ValueError as exc:
            raise _too_long(exc) from None

    def _pieces(self, messages: list[dict], max_tokens: int, **options: Any) -> Iterator[str]:
        """Text pieces of a streamed reply (llama.cpp only evaluates the prompt on the first next())."""
        stream = iter(self._complete(messages, max_tokens, stream=True, **options))
        while True:
            try:
                chunk = next(stream)
            except StopIteration:
                return
            except ValueError as exc:
                raise _too_long(exc) from None
            piece = chunk["choices"][0]["delta"].get("content") or ""
            if piece:
                yield piece

    def chat(
        self,
        messages: list[dict],
        max_tokens: int,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> str:
        """Generate a reply, streaming each text piece to `on_token` as it arrives."""
        pieces: list[str] = []
        for piece in self._pieces(messages, max_tokens, temperature=temperature, stop=stop):
            pieces.append(piece)
            if on_token is not None:
                on_token(piece)
        return "".join(pieces)

    def choice_logprobs(self, messages: list[dict], choices: list[str]) -> dict[str, float]:
        """Log-probability that the reply's first token starts each choice ("yes", "no"), any case.

        One forward step after the prompt: llama.cpp keeps the evaluated tokens, and the next
        chat() whose prompt shares this one's beginning reads only the part after it."""
        import numpy as np

        seen: list[np.ndarray] = []

        def record(_input_ids, scores):
            seen.append(np.array(scores, dtype=np.float64))
            return scores

        cpp = _import_llama_cpp()
        self._complete(messages, 1, temperature=0.0, logits_processor=cpp.LogitsProcessorList([record]))
        if not seen:
            raise GenerationError("llama.cpp returned no logits for the judgement", "use another model")
        row = seen[0]
        top = row.max()
        logprobs = row - top - np.log(np.exp(row - top).sum())
        return {choice: float(np.logaddexp.reduce([logprobs[t] for t in self._first_tokens(choice)]))
                for choice in choices}

    def _first_tokens(self, word: str) -> set[int]:
        variants = {word, word.capitalize(), word.upper(), " " + word, " " + word.capitalize()}
        return {self._llama.tokenize(v.encode("utf-8"), add_bos=False, special=False)[0] for v in variants}

    def chat_json(self, messages: list[dict], schema: dict, max_tokens: int) -> dict:
        """A reply constrained by a JSON-schema grammar, parsed into a dict."""
        result = self._complete(
            messages,
            max_tokens,
            temperature=0.0,
            response_format={"type": "json_object", "schema": schema},
        )
        return json_reply(result["choices"][0]["message"].get("content") or "", schema)
