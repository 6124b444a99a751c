"""Reading text files strictly: UTF-8 (BOM allowed), no binary, not empty."""

from __future__ import annotations

from pathlib import Path

from ...errors import LoaderError


def read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LoaderError(f"cannot read: {exc.strerror or exc}") from None
    if b"\x00" in data:
        raise LoaderError("binary content (NUL bytes) in a text file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LoaderError(f"invalid UTF-8 at byte {exc.start}") from None
    if not text.strip():
        raise LoaderError("no text (empty or whitespace only)")
    return text.replace("\r\n", "\n").replace("\r", "\n")
