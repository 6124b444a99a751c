"""Walking the paths given to `ragchain ingest`: which files, and what document ID each gets."""

from __future__ import annotations

import fnmatch
import os
import stat as stat_kind
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .loaders import loader_name

SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", "node_modules", ".ragchain", ".venv"}
IGNORE_FILE = ".ragchainignore"


@dataclass(frozen=True)
class Found:
    path: Path  # absolute
    doc_id: str


@dataclass(frozen=True)
class Unreadable:
    path: str
    reason: str


def doc_id_for(path: Path, root: Path, cwd: Path | None = None) -> str:
    """Relative to the working directory when the file is below it, else to the root's parent."""
    for base in (cwd or Path.cwd().resolve(), root.parent):
        try:
            return path.relative_to(base).as_posix()
        except ValueError:
            continue
    return path.as_posix()


def discover(paths: list[Path]) -> Iterator[Found | Unreadable]:
    """Files with a known loader below each path, in a stable order, each real file once."""
    seen: set[tuple[int, int]] = set()
    cwd = Path.cwd().resolve()
    for given in paths:
        root = Path(os.path.abspath(given))
        if not root.exists():
            yield Unreadable(str(given), "no such file or directory")
        elif root.is_dir():
            yield from _walk(root, seen, cwd)
        elif loader_name(root) is None:
            yield Unreadable(str(given), f"unsupported file type {root.suffix or '(none)'}")
        else:
            yield from _once(root, root, seen, cwd)


def _walk(root: Path, seen: set, cwd: Path) -> Iterator[Found | Unreadable]:
    errors: list[OSError] = []
    for current, dirs, files in os.walk(root, onerror=errors.append, followlinks=False):
        ignored = _ignore_patterns(Path(current))
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith(".") and not _match(d, ignored))
        for name in sorted(files):
            path = Path(current) / name
            if name.startswith(".") or loader_name(path) is None or _match(name, ignored):
                continue
            yield from _once(path, root, seen, cwd)
    for error in errors:
        yield Unreadable(str(error.filename), error.strerror or str(error))


def _ignore_patterns(folder: Path) -> list[str]:
    """Glob patterns from the folder's .ragchainignore (one a line, # comments), for its own entries."""
    try:
        lines = (folder / IGNORE_FILE).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _match(name: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in patterns)


def _once(path: Path, root: Path, seen: set, cwd: Path) -> Iterator[Found | Unreadable]:
    try:
        stat = path.stat()
    except OSError as exc:
        yield Unreadable(str(path), exc.strerror or str(exc))
        return
    if not stat_kind.S_ISREG(stat.st_mode):
        # a FIFO would block the first read forever, a device (e.g. a link to /dev/zero) never ends
        yield Unreadable(str(path), "not a regular file (a FIFO, socket or device)")
        return
    key = (stat.st_dev, stat.st_ino)
    if key in seen:
        return
    seen.add(key)
    yield Found(path, doc_id_for(path, root, cwd))
