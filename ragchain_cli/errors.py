"""Every error the library raises is a RagchainError with a message and a hint.

Only cli/ prints them and turns them into exit codes: one table, ERROR_EXIT_CODES in cli/output.py.
"""

from __future__ import annotations


class RagchainError(Exception):

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(RagchainError):
    """Bad flags, unknown component names, invalid option values."""


class InputFormatError(RagchainError):
    """A malformed qrels/queries/run file; the message names file and line."""


    def __init__(self, path: str, line: int, reason: str) -> None:
        if line:
            super().__init__(f"{path}:{line}: {reason}", "fix that line or pass a file in the expected format")
        else:  # the file as a whole: missing, unreadable, empty
            super().__init__(f"{path}: {reason}", "check the path, or pass a file in the expected format")
        self.path, self.line = path, line


class IndexNotFound(RagchainError):
    """No index at the given folder."""


class IndexMismatch(RagchainError):
    """The index was built with a different embedding model or chunking than requested."""


class ShardUnavailable(RagchainError):
    """A shard of a sharded index served by Ray (--engine ray) stopped answering, after a retry."""


class IndexBusy(RagchainError):
    """Another ingest holds the index lock."""


class IngestInterrupted(RagchainError):
    """Ctrl-C during an ingest: the message says what was kept."""


class InconsistentIndex(RagchainError):
    """The stores disagree on chunk IDs (ragchain check)."""


class ModelNotFound(RagchainError):
    """A model that needs a user-supplied file or package is missing."""


class ModelServerError(RagchainError):
    """The model server the user named (`--llm URL`) failed: a timeout, an HTTP error, a reply that is not JSON."""


class ModelServerDown(ModelServerError, ModelNotFound):
    """No model server answers at the URL, or it does not serve the model named: as a missing model."""


class LoaderError(RagchainError):
    """One file could not be read; ingest reports it and goes on."""


class DependencyMissing(RagchainError):
    """An optional package a component needs is not installed."""
