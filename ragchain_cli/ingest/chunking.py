"""Token-aware recursive splitting with overlap.

Each block is tokenized once with the embedder's own tokenizer (offsets included). A chunk
takes up to `size` tokens; its end is moved back to the strongest break found in the last
part of the window (paragraph, then line, then sentence, then word), and the next chunk
starts `overlap` tokens before that end, at a word boundary. Character offsets, page and
section travel with every chunk.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from ..config import Settings
from ..errors import UsageError
from ..offline import quiet_hub
from ..types import Chunk, Document

SEGMENT_CHARS = 1 << 20  # a longer block is tokenized one segment at a time (see _token_offsets)
BREAKS = (re.compile(r"\n\s*\n"), re.compile(r"\n"), re.compile(r"[.!?;:][\"')\]]?\s"), re.compile(r"\s"))


@dataclass(frozen=True)
class ChunkSettings:
    size: int = Settings.chunk_size  # defaults live in config.Settings
    overlap: int = Settings.chunk_overlap

    def validate(self) -> "ChunkSettings":
        if self.size < 16:
            raise UsageError(f"chunk size {self.size} is too small", "use at least 16 tokens")
        if not 0 <= self.overlap < self.size // 2:
            raise UsageError(f"chunk overlap {self.overlap} must be >= 0 and below half the size")
        return self


class Chunker:
    def __init__(self, tokenizer_json: Path, settings: ChunkSettings) -> None:
        from tokenizers import Tokenizer

        quiet_hub()  # TOKENIZERS_PARALLELISM: the tokenizer must not start threads a fork would copy
        self.tokenizer = Tokenizer.from_file(str(tokenizer_json))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self.settings = settings.validate()

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of the chunks of one block of text."""
        offsets = self._token_offsets(text)
        if len(offsets) == 0:
            return []
        size, overlap = self.settings.size, self.settings.overlap
        spans: list[tuple[int, int]] = []
        i = 0
        while i < len(offsets):
            j = min(i + size, len(offsets))
            if j < len(offsets):
                j = _break_before(text, offsets, i, j)
            spans.append((int(offsets[i][0]), int(offsets[j - 1][1])))
            if j >= len(offsets):
                break
            i = _word_start(text, offsets, max(j - overlap, i + 1))
        return spans

    def _token_offsets(self, text: str):
        """(start, end) of each non-empty token. A block longer than SEGMENT_CHARS (a 50 MB
        single-line file) is tokenized in segments cut at whitespace, where tokens do not cross,
        into one int64 array: one encode of the whole block held gigabytes (token strings and a
        Python tuple per token) and slowed down more than linearly."""
        if len(text) <= SEGMENT_CHARS:
            return [o for o in self.tokenizer.encode(text, add_special_tokens=False).offsets if o[1] > o[0]]
        import numpy as np

        parts, start = [], 0
        while start < len(text):
            end = min(start + SEGMENT_CHARS, len(text))
            if end < len(text):
                cut = max(text.rfind(" ", start, end), text.rfind("\n", start, end), text.rfind("\t", start, end))
                end = cut + 1 if cut > start else end
            found = self.tokenizer.encode(text[start:end], add_special_tokens=False).offsets
            offsets = np.asarray(found, dtype=np.int64).reshape(-1, 2)
            parts.append(offsets[offsets[:, 1] > offsets[:, 0]] + start)
            start = end
        return np.concatenate(parts)

    def chunk(self, doc: Document) -> list[Chunk]:
        chunks: list[Chunk] = []
        for block in doc.blocks:
            for start, end in self.spans(block.text):
                body = block.text[start:end].strip()
                if not body:
                    continue
                chunks.append(
                    Chunk(
                        chunk_id=chunk_id(doc.doc_id, len(chunks), body, doc.title),
                        doc_id=doc.doc_id, text=body, source=doc.source, ordinal=len(chunks),
                        page=block.page, section=block.section, start=start, end=end,
                        title=doc.title, date=doc.date, ocr=block.ocr,
                    )
                )
        return chunks


def chunk_id(doc_id: str, ordinal: int, text: str, title: str = "") -> str:
    """Deterministic: the same document, position and embedded text (Chunk.index_text: title, then
    text) always give the same ID, so a re-ingest reuses a stored vector only for what it embedded:
    a new title is a new ID. The position keeps a passage a document repeats as distinct chunks.
    (Without a title the ID is what it was before titles counted.)"""
    embedded = f"{title}\n{text}" if title else text
    digest = hashlib.blake2b(f"{doc_id}\x00{ordinal}\x00{embedded}".encode("utf-8", "surrogatepass"), digest_size=10)
    return digest.hexdigest()


def _break_before(text: str, offsets: list[tuple[int, int]], i: int, j: int) -> int:
    """Move the window end j back to the strongest break in the window's last third."""
    floor = i + max(1, (j - i) * 2 // 3)
    lo, hi = offsets[floor][0], offsets[j][0]
    window = text[lo:hi]
    for pattern in BREAKS:
        matches = list(pattern.finditer(window))
        if matches:
            cut = lo + matches[-1].end()
            k = j
            while k > floor and offsets[k - 1][0] >= cut:
                k -= 1
            return max(k, floor)
    return j


def _word_start(text: str, offsets: list[tuple[int, int]], k: int) -> int:
    """Move k forward to a token that starts a word (never past a few tokens)."""
    for step in range(8):
        idx = k + step
        if idx >= len(offsets):
            break
        start = offsets[idx][0]
        if start == 0 or not text[start - 1].isalnum():
            return idx
    return k
