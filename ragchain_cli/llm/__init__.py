"""The local model runtime: the model catalogue and cache, the llama.cpp wrapper, the F16 conversion
and prefix scoring. Anything that needs a local model (the answer path, HyDE, query expansion, the
UPR and listwise rerankers) imports it from here.

Importing this package is cheap: llama_cpp is imported only when a LocalLLM is created.
"""

from .llama import GenerationError, LocalLLM, default_threads
from .models import ModelInfo, cache_dir, list_models, resolve_model

__all__ = ["GenerationError", "LocalLLM", "ModelInfo", "cache_dir", "default_threads", "list_models",
           "resolve_model"]
