"""The one output sink: data on stdout (a table for people on a TTY, JSON/JSONL otherwise),
people's messages on stderr, and the exit codes in one place."""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import typer
from rich.console import Console

from .. import errors

EXIT_CODES = {
    0: "success",
    1: "unexpected error",
    2: "usage error, or a malformed input file (qrels, queries, config)",
    3: "ingest finished but some files were skipped (each is listed with its reason)",
    4: "index problem: missing, built with other settings, or stores disagree (check)",
    5: "index busy: another ingest holds the lock",
    6: "a model or optional dependency is missing, or no model server answers at the --llm URL",
    7: "the model server failed: a timeout, an HTTP error or a reply that is not JSON",
    130: "interrupted",
}

# Library errors by class, most specific first; anything else is 1 (see EXIT_CODES for what each means).
ERROR_EXIT_CODES: tuple[tuple[type[errors.RagchainError], int], ...] = (
    (errors.UsageError, 2),
    (errors.InputFormatError, 2),
    (errors.IndexNotFound, 4),
    (errors.IndexMismatch, 4),
    (errors.InconsistentIndex, 4),
    (errors.ShardUnavailable, 4),
    (errors.IndexBusy, 5),
    (errors.ModelNotFound, 6),
    (errors.DependencyMissing, 6),
    (errors.ModelServerError, 7),
    (errors.IngestInterrupted, 130),
)


def exit_code(exc: errors.RagchainError) -> int:
    """The exit code for a library error, from ERROR_EXIT_CODES."""
    return next((code for kind, code in ERROR_EXIT_CODES if isinstance(exc, kind)), 1)


stderr = Console(stderr=True, highlight=False, soft_wrap=True)


class Output:
    def __init__(self, as_json: bool | None = None) -> None:
        self.json = (not sys.stdout.isatty()) if as_json is None else as_json
        self.console = Console(highlight=False, soft_wrap=False)

    def data(self, payload: Any, human: Callable[[Console], None] | None = None) -> None:
        """One result: JSON when asked or piped, else the human rendering."""
        if self.json or human is None:
            _write(json.dumps(payload, ensure_ascii=False, default=str) + "\n")
        else:
            human(self.console)

    def line(self, payload: Any) -> None:
        """One JSONL record (stdin modes stream one line per input)."""
        _write(json.dumps(payload, ensure_ascii=False, default=str) + "\n")


def _write(text: str) -> None:
    """Data to stdout. When the reader has gone (`| head -1`), stop quietly with exit 0: stdout is
    pointed at /dev/null so the final flush cannot fail again."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):  # no real file descriptor (captured in tests)
            pass
        raise typer.Exit(0) from None


def stdin_lines() -> list[str]:
    """stdin's lines; bytes that are not UTF-8 become U+FFFD (read through surrogateescape they went
    back out raw, and the JSON on stdout was no longer UTF-8)."""
    buffer = getattr(sys.stdin, "buffer", None)
    text = buffer.read().decode("utf-8", "replace") if buffer is not None else sys.stdin.read()
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def shown(text: str) -> str:
    """Untrusted text (a file name, a document's words) made safe for one terminal line: control
    characters as escapes (a newline, or ESC that would drive the terminal), rich markup escaped."""
    from rich.markup import escape

    return escape("".join(c if c.isprintable() else repr(c)[1:-1] for c in text))


def progress(message: str) -> None:
    """A progress note for a person watching a terminal ("reading 4 passages ..."); silent in pipelines."""
    if stderr.is_terminal:
        stderr.print(f"[dim]{shown(message)}[/]")


def warn(message: str) -> None:
    stderr.print(f"[yellow]warning:[/] {message}")


class WarningLines(logging.Handler):
    """Each warning the library logs (logger "ragchain") as one `warning:` line on stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        warn(shown(record.getMessage()))


@contextmanager
def library_warnings() -> Iterator[None]:
    """While a command runs, the library's warnings go to stderr as warning lines (only there: not
    also through a host's own logging); a library caller's process keeps its logging as it was."""
    logger = logging.getLogger("ragchain")
    handler, propagate = WarningLines(logging.WARNING), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def error(message: str, hint: str = "") -> None:
    """An error and its hint, as written: brackets in them (`ragchain-cli[ray]`) are text, not markup."""
    stderr.print(f"[bold red]error:[/] {shown(message)}", markup=True)
    if hint:
        stderr.print(f"[dim]hint:[/] {shown(hint)}")
