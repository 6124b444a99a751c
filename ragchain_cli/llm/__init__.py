"""The model runtime: the model catalogue and cache, the llama.cpp wrapper, the F16 conversion and
prefix scoring, and a model an OpenAI-compatible server runs (served.py). Anything that drafts (the
answer path, HyDE, query expansion, the UPR and listwise rerankers) opens its model with open_llm.

Importing this package is cheap: llama_cpp is imported only when a LocalLLM is created, openai
only when a ServedLLM is.
"""

from .backend import LLMRef, as_ref, describe, local_path, open_llm
from .llama import GenerationError, LocalLLM, default_threads
from .models import ModelInfo, cache_dir, list_models, resolve_model

__all__ = ["GenerationError", "LLMRef", "LocalLLM", "ModelInfo", "as_ref", "cache_dir", "default_threads", "describe",
           "list_models", "local_path", "open_llm", "resolve_model"]
