from ragchain_cli.ingest.chunking import Chunker, ChunkSettings, chunk_id
from ragchain_cli.stores.embedders import tokenizer_file
from ragchain_cli.types import Block, Document

import pytest

from ragchain_cli.errors import UsageError


def _chunker(size=40, overlap=8):
    return Chunker(tokenizer_file("all-MiniLM-L6-v2"), ChunkSettings(size, overlap))


def _tokens(chunker, text):
    return len(chunker.tokenizer.encode(text, add_special_tokens=False).ids)


def test_short_text_is_one_chunk_with_offsets():
    chunker = _chunker()
    doc = Document("d1", "d1.txt", (Block("A short note about lakes."),), title="Note")
    [chunk] = chunker.chunk(doc)
    assert chunk.text == "A short note about lakes."
    assert (chunk.start, chunk.end) == (0, len(chunk.text))
    assert chunk.doc_id == "d1" and chunk.title == "Note"


def test_long_text_respects_size_overlaps_and_prefers_sentence_breaks():
    chunker = _chunker(40, 8)
    sentences = [f"Sentence number {i} talks about topic {i} in some detail." for i in range(30)]
    text = " ".join(sentences)
    spans = chunker.spans(text)
    assert len(spans) > 3
    for start, end in spans:
        assert _tokens(chunker, text[start:end]) <= 40
    for (s1, e1), (s2, _e2) in zip(spans, spans[1:]):
        assert s2 < e1, "neighbouring chunks overlap"
        assert s2 > s1
    ends_at_sentence = sum(text[start:end].rstrip().endswith(".") for start, end in spans[:-1])
    assert ends_at_sentence >= len(spans) - 2
    assert spans[-1][1] == len(text)


def test_chunks_keep_page_and_section_and_ids_are_deterministic():
    chunker = _chunker()
    doc = Document("d2", "d2.pdf", (Block("page one text", page=1), Block("page two text", page=2, section="B")))
    first, second = chunker.chunk(doc)
    assert (first.page, second.page, second.section) == (1, 2, "B")
    assert first.chunk_id == chunk_id("d2", 0, "page one text")
    assert [c.chunk_id for c in chunker.chunk(doc)] == [first.chunk_id, second.chunk_id]
    assert first.chunk_id != chunk_id("d2", 0, "page one text!")


def test_invalid_settings_are_usage_errors():
    with pytest.raises(UsageError):
        _chunker(8, 0)
    with pytest.raises(UsageError):
        _chunker(40, 30)
