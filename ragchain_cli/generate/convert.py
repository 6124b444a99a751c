"""A catalogue model converted once, in the cache, to a type llama.cpp reads a prompt faster in.

Reading the prompt is most of an answer's time (bench/RESULTS.md, issue 27). On x86, llama.cpp
multiplies a whole prompt through its fast matrix kernels only for some weight types; the K-quants
the default model ships in (Q4_K_M) are not among them, F16 is. So the default model is converted
once to F16, next to the assembled file: the same weights (each rounded to F16, about 1 part in
4,000), twice the size on disk, its prompts read in about 0.6x the time (bench/RESULTS.md).

A marker records the converted file and the source it came from; later runs only stat both. When
the conversion cannot be made (a read-only or full cache), the source file is used as it is.
"""

from __future__ import annotations

import ctypes
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ..errors import RagchainError

class ConversionFailed(RagchainError):
    """llama.cpp could not write the converted file (caught in `converted`: the source is used instead)."""


def target(source: Path, kind: str) -> Path:
    """Where `source` converted to `kind` is kept: beside it."""
    return source.with_name(f"{source.name.removesuffix('.gguf')}.{kind}.gguf")


def converted(source: Path, kind: str) -> Path:
    """`source` converted to `kind` in its own folder, made once; `source` itself when that fails."""
    dest = target(source, kind)
    marker = dest.with_name(dest.name + ".verified")
    if _recorded(marker) == _stamps(source, dest):
        return dest
    try:
        _convert(source, dest, kind)
        _write(marker, _stamps(source, dest))
    except (OSError, ConversionFailed):
        return source
    return dest


def _stamps(source: Path, dest: Path) -> dict:
    def stamp(path: Path) -> dict | str:
        try:
            st = path.stat()
        except OSError:
            return "missing"
        return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    return {"source": stamp(source), "converted": stamp(dest)}


def _recorded(marker: Path) -> Any:
    try:
        return json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write(marker: Path, stamps: dict) -> None:
    tmp = marker.with_name(marker.name + f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(stamps), encoding="utf-8")
    os.replace(tmp, marker)


def _convert(source: Path, dest: Path, kind: str) -> None:
    """Write `dest` atomically with llama.cpp's own converter (its log kept quiet)."""
    import llama_cpp
    from llama_cpp._logger import set_verbose

    set_verbose(False)
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, f"LLAMA_FTYPE_MOSTLY_{kind.upper()}")
    params.allow_requantize = True
    params.nthread = os.cpu_count() or 1
    fd, tmp_name = tempfile.mkstemp(prefix=dest.name + ".", suffix=".tmp", dir=dest.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        if llama_cpp.llama_model_quantize(str(source).encode(), str(tmp).encode(), ctypes.byref(params)) != 0:
            raise ConversionFailed(f"llama.cpp could not convert {source} to {kind}", "the source file is used as it is")
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
