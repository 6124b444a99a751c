"""The small dataclasses that cross seams: Chunk, Hit, Answer (and what loaders hand the chunker);
Run and Qrels, the evaluation's two mappings."""

from __future__ import annotations

from dataclasses import dataclass, field

Run = dict[str, dict[str, float]]  # a ranking per query: qid -> doc_id -> score (TREC run; higher is better)
Qrels = dict[str, dict[str, int]]  # judgements: qid -> doc_id -> graded relevance


@dataclass(frozen=True)
class Block:
    """A run of text from a loader: one page of a PDF, one section of a Markdown file."""

    text: str
    page: int | None = None
    section: str = ""
    ocr: str | None = None


@dataclass(frozen=True)
class Document:
    """What a loader produces: one logical document with its text blocks and metadata."""

    doc_id: str
    source: str
    blocks: tuple[Block, ...]
    title: str = ""
    date: str | None = None
    metadata: dict = field(default_factory=dict, hash=False, compare=False)
    read_to: int = field(default=0, compare=False)  # bytes of its file read once it was loaded (0: not known); progress only


@dataclass(frozen=True)
class Chunk:
    """A retrievable unit of text; its chunk_id is shared by every store (the Linker)."""

    chunk_id: str
    doc_id: str
    text: str
    source: str = ""
    ordinal: int = 0
    page: int | None = None
    section: str = ""
    start: int = 0
    end: int = 0
    title: str = ""
    date: str | None = None
    ocr: str | None = None

    def index_text(self) -> str:
        """The text the lexical and vector indexes see: title (when present) then body."""
        return f"{self.title}\n{self.text}" if self.title else self.text


@dataclass
class Hit:
    """One ranked result. Scores are higher-is-better; explain maps retriever -> (rank, score)."""

    chunk_id: str
    score: float
    doc_id: str = ""
    explain: dict[str, tuple[int, float]] = field(default_factory=dict)
    chunk: Chunk | None = None
    superseded_by: str = ""  # the newest version of this hit's document, when this one is older
    older_versions: tuple[str, ...] = ()  # older versions of this hit's document that --latest dropped


@dataclass
class Citation:
    number: int
    chunk_id: str
    doc_id: str
    source: str
    page: int | None = None


@dataclass
class Answer:
    question: str
    text: str
    citations: list[Citation]
    hits: list[Hit]
    timings: dict[str, float] = field(default_factory=dict)


def sort_hits(hits: list[Hit]) -> list[Hit]:
    """The one ordering rule: by descending score, ties by chunk_id."""
    return sorted(hits, key=lambda h: (-h.score, h.chunk_id))

