"""The model behind the query-side extensions (hyde, expand): checked at once, opened on first use."""

from __future__ import annotations

import threading
from typing import Any

from ..config import DEFAULTS
from ..llm.backend import LLMRef, as_ref, local_path, open_llm


class LazyLLM:
    """`llm` is a catalogue name, a .gguf path or a server URL, or a whole LLMRef ("" = the best installed
    model). A missing local model fails here, before any search; a server is first asked when the model
    is first used. Local weights load on the first call and are shared per process by LocalLLM. Calls
    are serialised: one llama.cpp context must not generate from two threads."""

    def __init__(self, llm: "str | LLMRef" = "", n_ctx: int = DEFAULTS.n_ctx) -> None:
        self.ref = as_ref(llm)
        self.path = local_path(self.ref)
        self.n_ctx = int(n_ctx)
        self._model: Any = None
        self._lock = threading.Lock()

    def _get(self) -> Any:
        if self._model is None:
            self._model = open_llm(self.ref, self.n_ctx, self.path)
        return self._model

    def chat(self, messages: list[dict], max_tokens: int, temperature: float = 0.0) -> str:
        with self._lock:
            return self._get().chat(messages, max_tokens=max_tokens, temperature=temperature)

    def chat_json(self, messages: list[dict], schema: dict, max_tokens: int) -> dict:
        with self._lock:
            return self._get().chat_json(messages, schema, max_tokens=max_tokens)
