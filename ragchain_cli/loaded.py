"""The one per-process cache of loaded models: embedders, query encoders, reranker models,
llama.cpp models and OCR backends. Each is loaded once per key and shared by every caller.

Keys are tuples that start with the kind ("embedder", "llama", "ocr", ...). Loading holds a
re-entrant lock, so a loader may load what it builds on (a query encoder its embedder, a
scorer its llama.cpp model) and two threads never load the same model twice. A value given
a `close` is closed at exit, while the interpreter is intact (llama.cpp's __del__ fails at
shutdown).
"""

from __future__ import annotations

import atexit
import threading
from typing import Any, Callable

_LOADED: dict[tuple, Any] = {}
_CLOSERS: dict[tuple, Callable[[Any], None]] = {}
_LOCK = threading.RLock()


def load_once(key: tuple, loader: Callable[[], Any], close: Callable[[Any], None] | None = None) -> Any:
    """loader() the first time a key is asked for, the same object afterwards."""
    with _LOCK:
        if key not in _LOADED:
            value = loader()
            if close is not None:
                if not _CLOSERS:
                    atexit.register(close_all)
                _CLOSERS[key] = close
            _LOADED[key] = value
        return _LOADED[key]


def is_loaded(key: tuple) -> bool:
    return key in _LOADED


def close_all() -> None:
    """Close the values loaded with a `close` and forget them, newest first (a context before its model)."""
    with _LOCK:
        closing = [(_LOADED.pop(key), close) for key, close in reversed(_CLOSERS.items()) if key in _LOADED]
        _CLOSERS.clear()
    for value, close in closing:
        close(value)
