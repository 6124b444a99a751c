"""Local generation with citations: the model catalogue, the llama.cpp wrapper, prompts, answers.

Importing this package is cheap: llama_cpp is imported only when a LocalLLM is created.
"""

from .answer import NOTHING_FOUND, answer_question, context_budget
from .llama import GenerationError, LocalLLM, default_threads
from .models import ModelInfo, cache_dir, list_models, resolve_model
from .prompt import SourceConsulted, build_messages, extract_citations, pack_context

__all__ = [
    "NOTHING_FOUND",
    "GenerationError",
    "LocalLLM",
    "ModelInfo",
    "SourceConsulted",
    "answer_question",
    "build_messages",
    "cache_dir",
    "context_budget",
    "default_threads",
    "extract_citations",
    "list_models",
    "pack_context",
    "resolve_model",
]
