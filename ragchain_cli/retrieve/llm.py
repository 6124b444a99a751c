"""The local LLM behind the query-side extensions (hyde, expand): resolved at once, loaded on first use."""

from __future__ import annotations

import threading
from typing import Any

from ..config import DEFAULTS
from ..llm.models import resolve_model


class LazyLLM:
    """`llm` is a catalogue name or a .gguf path ("" = the best installed one). A missing model fails
    here, before any search; the weights load on the first call and are shared per process by
    LocalLLM. Calls are serialised: one llama.cpp context must not generate from two threads."""

    def __init__(self, llm: str = "", n_ctx: int = DEFAULTS.n_ctx) -> None:
        self.path = resolve_model(llm or None)
        self.n_ctx = int(n_ctx)
        self._model: Any = None
        self._lock = threading.Lock()

    def _get(self) -> Any:
        if self._model is None:
            from ..llm.llama import LocalLLM

            self._model = LocalLLM(self.path, n_ctx=self.n_ctx)
        return self._model

    def chat(self, messages: list[dict], max_tokens: int, temperature: float = 0.0) -> str:
        with self._lock:
            return self._get().chat(messages, max_tokens=max_tokens, temperature=temperature)

    def chat_json(self, messages: list[dict], schema: dict, max_tokens: int) -> dict:
        with self._lock:
            return self._get().chat_json(messages, schema, max_tokens=max_tokens)
