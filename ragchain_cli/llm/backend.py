"""Which model drafts, and opening it: `LLMRef` names a catalogue model, a .gguf file or a server URL
(with, for a server, the model's name and the timeout); `open_llm` gives a LocalLLM (llama.cpp in this
process) or a ServedLLM (an OpenAI-compatible server). Everything that drafts opens its model here: the
answer path, HyDE, query expansion and the listwise reranker; UPR too, which a server refuses."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import DEFAULTS
from .served import is_url


@dataclass(frozen=True)
class LLMRef:
    source: str = DEFAULTS.llm  # catalogue name, path to a .gguf file, or http(s):// URL; "": the best installed
    model: str = DEFAULTS.llm_model  # served: the model's name on the server ("": its only one)
    timeout: float = DEFAULTS.llm_timeout  # served: seconds to wait for an answer

    @classmethod
    def of(cls, settings: Any) -> "LLMRef":
        return cls(settings.llm, settings.llm_model, settings.llm_timeout)

    @property
    def served(self) -> bool:
        return is_url(self.source)


def as_ref(llm: "str | LLMRef") -> LLMRef:
    """A component's `llm` option: a plain string (a name, path or URL) or a whole LLMRef."""
    return llm if isinstance(llm, LLMRef) else LLMRef(llm or "")


def local_path(ref: LLMRef) -> Path | None:
    """The GGUF file a local model would load (checked now, so a missing model fails before any work);
    None for a served one."""
    from .models import resolve_model

    return None if ref.served else resolve_model(ref.source or None)


def open_llm(llm: "str | LLMRef", n_ctx: int = DEFAULTS.n_ctx, path: Path | None = None) -> Any:
    """The model `llm` names: a ServedLLM (the server is asked which models it serves now) or a LocalLLM
    (loaded once per process); `path`: the local file already resolved by local_path()."""
    ref = as_ref(llm)
    if ref.served:
        from .served import ServedLLM

        return ServedLLM(ref.source, ref.model, n_ctx=n_ctx, timeout=ref.timeout)
    from .llama import LocalLLM

    return LocalLLM(path or local_path(ref), n_ctx=n_ctx)


def describe(model: Any) -> dict:
    """What drafted, for the JSON (`llm`): a model without describe() (a library caller's own) is "custom"."""
    own = getattr(model, "describe", None)
    return own() if callable(own) else {"backend": "custom", "model": type(model).__name__}
