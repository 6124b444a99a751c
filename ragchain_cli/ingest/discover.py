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


def absolute(path: Path | str) -> Path:
    """A given path made absolute without resolving symbolic links: files found below it are stored
    under it (`link/b.txt` stays `link/b.txt`), and removals are looked for under the same form."""
    return Path(os.path.abspath(path))


@dataclass(frozen=True)
class IgnoreProblem:
    """A .ragchainignore (or one of its lines) that cannot be applied as written."""

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


def discover(paths: list[Path], base: str = "") -> Iterator[Found | Unreadable | IgnoreProblem]:
    """Files with a known loader below each path, in a stable order, each real file once; document
    IDs relative to `base` ("": the working directory) when a file is below it (doc_id_for)."""
    seen: set[tuple[int, int]] = set()
    cwd = Path(base or os.getcwd()).resolve()
    for given in paths:
        root = absolute(given)
        if not root.exists():
            yield Unreadable(str(given), "no such file or directory")
        elif root.is_dir():
            yield from _walk(root, seen, cwd)
        elif loader_name(root) is None:
            yield Unreadable(str(given), f"unsupported file type {root.suffix or '(none)'}")
        else:
            yield from _once(root, root, seen, cwd)


def _walk(root: Path, seen: set, cwd: Path) -> Iterator[Found | Unreadable | IgnoreProblem]:
    errors: list[OSError] = []
    for current, dirs, files in os.walk(root, onerror=errors.append, followlinks=False):
        ignored, problems = ignore_patterns(Path(current))
        yield from problems
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith(".") and not _match(d, ignored))
        for name in sorted(files):
            path = Path(current) / name
            if name.startswith(".") or loader_name(path) is None or _match(name, ignored):
                continue
            yield from _once(path, root, seen, cwd)
    for error in errors:
        yield Unreadable(str(error.filename), error.strerror or str(error))


def ignore_patterns(folder: Path) -> tuple[list[str], list[IgnoreProblem]]:
    """Glob patterns from the folder's .ragchainignore (one a line, # comments), matched against
    the names of its own entries (a trailing / is allowed), and what is wrong with the file: an
    unreadable or non-UTF-8 file applies no pattern, a line it cannot honour is left out."""
    path = folder / IGNORE_FILE
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return [], []
    except OSError as exc:
        return [], [IgnoreProblem(str(path), f"cannot read it ({exc.strerror or exc}); no pattern applied")]
    except UnicodeDecodeError:
        return [], [IgnoreProblem(str(path), "not UTF-8 text; no pattern applied")]
    patterns, problems = [], []
    for number, line in enumerate(lines, start=1):
        pattern = line.strip()
        if not pattern or pattern.startswith("#"):
            continue
        reason = _unsupported(pattern.rstrip("/"))
        if reason:
            problems.append(IgnoreProblem(f"{path}:{number}", f"{pattern!r} ignored: {reason}"))
        else:
            patterns.append(pattern.rstrip("/"))
    return patterns, problems


def _unsupported(pattern: str) -> str:
    if pattern.startswith("!"):
        return "negation (!) is not supported"
    if "/" in pattern or "\x00" in pattern:
        return "patterns match file and folder names, not paths (put a .ragchainignore in that folder)"
    return "" if pattern else "an empty pattern"


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
