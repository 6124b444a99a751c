"""Every error the library raises is a RagchainError with a message and a hint.

Only cli/ prints them and turns them into exit codes (see EXIT_CODES in cli/output.py).
"""

from __future__ import annotations


class RagchainError(Exception):
    exit_code = 1

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(RagchainError):
    """Bad flags, unknown component names, invalid option values."""

    exit_code = 2


class InputFormatError(RagchainError):
    """A malformed qrels/queries/run file; the message names file and line."""

    exit_code = 2

    def __init__(self, path: str, line: int, reason: str) -> None:
        if line:
            super().__init__(f"{path}:{line}: {reason}", "fix that line or pass a file in the expected format")
        else:  # the file as a whole: missing, unreadable, empty
            super().__init__(f"{path}: {reason}", "check the path, or pass a file in the expected format")
        self.path, self.line = path, line


class IndexNotFound(RagchainError):
    exit_code = 4


class IndexMismatch(RagchainError):
    """The index was built with a different embedding model or chunking than requested."""

    exit_code = 4


class IndexBusy(RagchainError):
    """Another ingest holds the index lock."""

    exit_code = 5


class IngestInterrupted(RagchainError):
    """Ctrl-C during an ingest: the message says what was kept."""

    exit_code = 130


class InconsistentIndex(RagchainError):
    """The stores disagree on chunk IDs (ragchain check)."""

    exit_code = 4


class ModelNotFound(RagchainError):
    """A model that needs a user-supplied file or package is missing."""

    exit_code = 6


class LoaderError(RagchainError):
    """One file could not be read; ingest reports it and goes on."""


class DependencyMissing(RagchainError):
    exit_code = 6
