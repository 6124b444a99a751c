"""Tantivy lexical index: a raw-tokenized chunk_id and the analyzed text, nothing else.

No tantivy type leaves this module. User text is reduced to plain terms before parsing,
so quotes, colons, brackets or unbalanced syntax can never make a query fail. The text field's
analyzer (stores/analyzer.py: stemmed, accents folded) is registered on every index opened here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from .analyzer import ANALYZER, analyzer

_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)
TOKENIZER = ANALYZER  # the text field's tokenizer name, recorded in the index manifest
# A shard's pad entries (stores/shard_pads.py): their IDs start with PAD_PREFIX, their text is PAD_WORD
# repeated; they are left out of every ID, count, term and result read here.
PAD_PREFIX = "ragchain:pad:"
PAD_WORD = "ragchainpadword"


def _schema():
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    builder.add_text_field("text", stored=False, tokenizer_name=TOKENIZER)
    return builder.build()


def plain_terms(query: str) -> str:
    """Keep words only, lower-cased, so the query parser sees no operators or syntax."""
    return _NON_WORD.sub(" ", query.replace("\x00", " ")).lower().strip()


class LexicalIndex:
    def __init__(self, path: Path, heap_size: int = 128_000_000) -> None:
        import tantivy

        path.mkdir(parents=True, exist_ok=True)
        self._tantivy = tantivy
        self.path = path
        self.index = tantivy.Index(_schema(), path=str(path), reuse=True)
        self.index.register_tokenizer(TOKENIZER, analyzer())
        self._writer = None
        self._heap_size = heap_size  # the writer's indexing arena, held while the index is open
        self._max_doc: tuple[tuple[int, int], int] | None = None  # (meta.json's mtime and size, max_doc)

    # -- writes ---------------------------------------------------------------------------
    def _get_writer(self):
        if self._writer is None:
            self._writer = self.index.writer(heap_size=self._heap_size, num_threads=1)
            # a process killed after writing a file but before the meta.json naming it leaves that file
            # behind (a segment's `.del`); the next commit would write the same name and fail, so files no
            # commit refers to go first (Tantivy's own clean-up after a commit, run before one)
            self._writer.garbage_collect_files()
        return self._writer

    def apply(self, delete_ids: Iterable[str], add: Iterable[tuple[str, str]]) -> None:
        """Delete chunk IDs, then add (chunk_id, text) pairs, in one commit."""
        self.stage(delete_ids, add)
        self.commit()

    def stage(self, delete_ids: Iterable[str], add: Iterable[tuple[str, str]]) -> None:
        """Queue deletes, then adds, for the next commit (Tantivy's indexing thread starts on them at
        once, so two indexes staged one after the other index at the same time)."""
        writer = self._get_writer()
        for chunk_id in delete_ids:
            writer.delete_documents_by_term("chunk_id", chunk_id)
        for chunk_id, text in add:
            writer.add_document(self._tantivy.Document(chunk_id=chunk_id, text=text))

    def commit(self) -> None:
        self._get_writer().commit()

    def close(self) -> None:
        if self._writer is not None:
            self._writer.wait_merging_threads()
            self._writer = None

    # -- reads ----------------------------------------------------------------------------
    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        terms = plain_terms(query)
        if not terms or k <= 0:
            return []
        return self._top(terms, k)

    def search_weighted(self, weights: Mapping[str, float], k: int) -> list[tuple[str, float]]:
        """BM25 for a weighted bag of words (query expansion): each word boosted by its weight > 0."""
        parts = [f"{word}^{weight:.6f}" for term, weight in sorted(weights.items()) if weight > 5e-7
                 for word in plain_terms(term).split()]
        if not parts or k <= 0:
            return []
        return self._top(" ".join(parts), k)

    def search_within(self, query: str, chunk_ids: list[str]) -> list[tuple[str, float]]:
        """BM25 of the query over these chunks only (the index's statistics), best first."""
        terms = plain_terms(query)
        return self.search_within_text(terms, chunk_ids) if terms else []

    def search_within_text(self, text: str, chunk_ids: list[str]) -> list[tuple[str, float]]:
        """search_within for query text already reduced to words (possibly boosted: `word^1.5`)."""
        if not text or not chunk_ids:
            return []
        self.index.reload()
        q, occur, schema = self._tantivy.Query, self._tantivy.Occur, self.index.schema
        parsed, _errors = self.index.parse_query_lenient(text, ["text"])
        among = q.const_score_query(q.boolean_query([(occur.Should, q.term_query(schema, "chunk_id", cid))
                                                     for cid in chunk_ids]), 0.0)  # a filter: adds no score
        searcher = self.index.searcher()
        hits = searcher.search(q.boolean_query([(occur.Must, parsed), (occur.Must, among)]), len(chunk_ids)).hits
        return [(searcher.doc(address)["chunk_id"][0], float(score)) for score, address in hits]

    def search_text(self, text: str, k: int) -> list[tuple[str, float]]:
        """The top k for query text already reduced to words (possibly boosted: `word^1.5`)."""
        return self._top(text, k) if text and k > 0 else []

    def _top(self, text: str, k: int) -> list[tuple[str, float]]:
        self.index.reload()
        parsed, _errors = self.index.parse_query_lenient(text, ["text"])
        searcher = self.index.searcher()
        hits = searcher.search(parsed, k).hits
        found = [(searcher.doc(address)["chunk_id"][0], float(score)) for score, address in hits]
        return [hit for hit in found if not hit[0].startswith(PAD_PREFIX)] if PAD_WORD in text else found

    def doc_freqs(self, words: list[str]) -> dict[str, int]:
        """How many chunks hold each word, after the index's own stemming (0 for a word it never saw)."""
        self.index.reload()
        searcher = self.index.searcher()
        counts = {}
        for word in words:
            terms = plain_terms(word)
            parsed = self.index.parse_query_lenient(terms, ["text"])[0] if terms else None
            counts[word] = searcher.search(parsed, 1).count if parsed is not None else 0
        return counts

    # -- the term dictionary (spelling correction) -----------------------------------------
    def stems(self, text: str) -> list[str]:
        """The text's words as this index stores them (its own tokenizer and stemmer)."""
        return analyzer().analyze(plain_terms(text))

    def term_counts(self, terms: Iterable[str]) -> dict[str, int]:
        """How many chunks hold each stored (already stemmed) term."""
        self.index.reload()
        searcher = self.index.searcher()
        return {term: searcher.doc_freq("text", term) for term in terms}

    def terms_starting(self, prefix: str) -> list[tuple[str, int]]:
        """Every stored term beginning with `prefix`, with its chunk count."""
        self.index.reload()
        return [(term, n) for term, n in self.index.searcher().terms_with_prefix("text", prefix) if term != PAD_WORD]

    def chunks_with_both(self, term: str, others: Iterable[str]) -> dict[str, str]:
        """For each of `others` that shares a chunk with `term`: that chunk's ID (stored terms)."""
        self.index.reload()
        searcher, q = self.index.searcher(), self._tantivy.Query
        schema, must = self.index.schema, self._tantivy.Occur.Must
        found = {}
        for other in others:
            both = q.boolean_query([(must, q.term_query(schema, "text", term)), (must, q.term_query(schema, "text", other))])
            hits = searcher.search(both, 1).hits
            if hits:
                found[other] = searcher.doc(hits[0][1])["chunk_id"][0]
        return found

    def holders(self, term: str) -> list[str]:
        """The IDs of every entry that holds the stored (already stemmed) term."""
        return self._matching(self._tantivy.Query.term_query(self.index.schema, "text", term))[1]

    def ids(self) -> set[str]:
        return {entry for entry in self._matching(self._tantivy.Query.all_query())[1] if not entry.startswith(PAD_PREFIX)}

    def max_doc(self) -> int:
        """The entries BM25 counts (Tantivy's N): the live ones and the deleted ones its segments
        still hold until a merge, as the index's meta.json lists them (its documented format)."""
        import json

        meta = self.path / "meta.json"
        seen = meta.stat()
        if self._max_doc is None or self._max_doc[0] != (seen.st_mtime_ns, seen.st_size):  # read once a commit
            listed = json.loads(meta.read_text(encoding="utf-8"))
            self._max_doc = ((seen.st_mtime_ns, seen.st_size),
                             sum(int(segment["max_doc"]) for segment in listed.get("segments", [])))
        return self._max_doc[1]

    def count(self) -> int:
        self.index.reload()
        return self.index.searcher().num_docs - self._matching(self._pads_query(), fetch=False)[0]

    def pads(self) -> list[int]:
        """The tokens each pad entry holds (its ID says: PAD_PREFIX + number + ":" + tokens)."""
        return [int(entry.rsplit(":", 1)[1]) for entry in self._matching(self._pads_query())[1]]

    def _pads_query(self):
        return self._tantivy.Query.regex_query(self.index.schema, "chunk_id", PAD_PREFIX + ".*")

    def _matching(self, query, fetch: bool = True) -> tuple[int, list[str]]:
        """How many entries the query matches, and (with `fetch`) the IDs of all of them."""
        self.index.reload()
        searcher = self.index.searcher()
        count = searcher.search(query, 1).count
        if not (count and fetch):
            return count, []
        return count, [searcher.doc(address)["chunk_id"][0] for _score, address in searcher.search(query, count).hits]


__all__ = ["LexicalIndex", "TOKENIZER", "analyzer", "plain_terms"]  # analyzer: re-exported from stores/analyzer.py
