"""A catalogue model converted once, in the cache, to a type llama.cpp reads a prompt faster in.

Reading the prompt is most of an answer's time (bench/RESULTS.md, issue 27). On x86, llama.cpp
multiplies a whole prompt through its fast matrix kernels only for some weight types; the K-quants
the default model ships in (Q4_K_M) are not among them, F16 is. So the default model is converted
once to F16, next to the assembled file: the same weights (each rounded to F16, about 1 part in
4,000), twice the size on disk, its prompts read in about 0.6x the time (bench/RESULTS.md).

A marker records the converted file and the source it came from; later runs only stat both. When
the conversion cannot be made (a read-only or full cache), the source file is used as it is, and a
warning on the "ragchain" logger says so, once a process (the CLI shows it as one line on stderr).
"""

from __future__ import annotations

import ctypes
import logging
import os
from pathlib import Path

from ..errors import RagchainError
from .cachefiles import atomic_file, marker_for, read_marker, stamp, write_marker

log = logging.getLogger("ragchain")
_FAILED: set[tuple[Path, str]] = set()  # conversions that failed in this process: said once, not tried again


class ConversionFailed(RagchainError):
    """llama.cpp could not write the converted file (caught in `converted`: the source is used instead)."""


def target(source: Path, kind: str) -> Path:
    """Where `source` converted to `kind` is kept: beside it."""
    return source.with_name(f"{source.name.removesuffix('.gguf')}.{kind}.gguf")


def converted(source: Path, kind: str) -> Path:
    """`source` converted to `kind` in its own folder, made once; `source` itself when that fails."""
    dest = target(source, kind)
    marker = marker_for(dest)
    try:
        if read_marker(marker) == _record(source, dest):
            return dest
    except OSError:
        pass  # not converted yet
    if (source, kind) in _FAILED:
        return source
    try:
        _convert(source, dest, kind)
        write_marker(marker, _record(source, dest))
    except (OSError, ConversionFailed) as exc:
        _FAILED.add((source, kind))
        why = (exc.message if isinstance(exc, ConversionFailed)
               else f"could not convert {source} to {kind} ({exc.strerror or exc})")
        log.warning("%s; the model is read as it is, its prompts more slowly", why)
        return source
    return dest


def _record(source: Path, dest: Path) -> dict:
    """The marker's record: the converted file and the source it was made from."""
    return {"source": stamp(source), "converted": stamp(dest)}


def _convert(source: Path, dest: Path, kind: str) -> None:
    """Write `dest` atomically with llama.cpp's own converter (its log kept quiet)."""
    import llama_cpp
    from llama_cpp._logger import set_verbose

    set_verbose(False)
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, f"LLAMA_FTYPE_MOSTLY_{kind.upper()}")
    params.allow_requantize = True
    params.nthread = os.cpu_count() or 1
    with atomic_file(dest) as tmp:
        if llama_cpp.llama_model_quantize(str(source).encode(), str(tmp).encode(), ctypes.byref(params)) != 0:
            raise ConversionFailed(f"llama.cpp could not convert {source} to {kind}", "the source file is used as it is")
