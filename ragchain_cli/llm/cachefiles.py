"""Files in the model cache: written atomically, vouched for by a marker beside them.

A marker records what was checked about a file (its path, size and modification time, and what the
caller adds: a sha256, the source it was converted from), so a later run only stats the file. Both
models.py (assembled and verified models) and convert.py (their converted copies) keep files so.
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator


def stamp(path: Path) -> dict:
    """What a marker records of a file; OSError when it is missing."""
    st = path.stat()
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def marker_for(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def read_marker(marker: Path) -> Any:
    """The marker's record, or None when there is none (or it is unreadable)."""
    try:
        return json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def write_marker(marker: Path, record: dict) -> None:
    """Record a checked file; a read-only cache only costs a recheck next time."""
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        tmp = marker.with_name(marker.name + f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(record), encoding="utf-8")
        os.replace(tmp, marker)
    except OSError:
        return


@contextmanager
def atomic_file(dest: Path) -> Iterator[Path]:
    """A temporary path beside `dest` to write; it becomes `dest` (mode 644) only if the block succeeds."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=dest.name + ".", suffix=".tmp", dir=dest.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
