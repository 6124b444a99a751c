"""The search pipeline: retrievers -> fusion -> Linker hydration -> filters -> recency ->
rerank -> (optional) max-passage collapse -> top k. Library only; the CLI renders.

With `documents` and `document_fusion` the fusion is over documents: each retriever's list is
collapsed to its documents before fusing, and with `whole_documents` a BM25 list over whole
documents joins them (retrieve/documents.py)."""

from __future__ import annotations

import dataclasses
import fnmatch
import time
from collections import OrderedDict, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime

from ..config import DEFAULTS, Settings, parse_weights
from ..errors import UsageError
from ..fusion import collapse_to_documents, fuse
from ..llm.backend import LLMRef
from ..stores.index import Index
from ..stores.linker import Linker
from ..stores.versions import VersionView
from ..normalize import normalize
from ..timeaware import parse_bound, parse_duration, recency_boost, within
from ..types import Hit
from . import RETRIEVERS, search_many
from .documents import DocumentRanker
from .spelling import Spelling, speller_for

FILTER_OVERFETCH = 5
SPELLED = 4096  # corrected queries remembered for spelling_of (a long-lived pipeline must not grow without end)
DOCUMENT_SLACK = 16  # fused documents kept beyond k when nothing after fusion filters or reorders them



@dataclass
class SearchOptions:
    """What a SearchPipeline runs; build it with search_options(settings) so it has the CLI's defaults."""

    retrievers: list[str] = field(default_factory=DEFAULTS.retriever_names)
    fusion: str = DEFAULTS.fusion
    rrf_k: float = DEFAULTS.rrf_k
    norm: str = DEFAULTS.norm
    weights: dict[str, float] = field(default_factory=dict)
    depth: int = DEFAULTS.depth
    k: int = DEFAULTS.k
    since: datetime | None = None
    until: datetime | None = None
    source: str = ""
    recency: float | None = None
    recency_weight: float = DEFAULTS.recency_weight
    documents: bool = False
    document_fusion: bool = DEFAULTS.document_fusion  # documents: collapse each retriever's list, then fuse
    passage_decay: float = DEFAULTS.passage_decay  # document_fusion: max + decay * 2nd + decay^2 * 3rd ...
    whole_documents: bool = DEFAULTS.whole_documents  # document_fusion with bm25: BM25 over whole documents too
    latest: bool = DEFAULTS.latest  # keep only the newest version of each version group
    spelling: bool = DEFAULTS.spelling  # query words no chunk holds corrected first (retrieve/spelling.py)
    rerank: str = DEFAULTS.rerank
    rerank_depth: int = DEFAULTS.rerank_depth
    reranker_options: dict = field(default_factory=dict)
    llm: "str | LLMRef" = DEFAULTS.llm  # for the retrievers and stages that generate (hyde, expand): name, path or URL
    n_ctx: int = DEFAULTS.n_ctx
    expand: bool = DEFAULTS.expand
    retriever_options: dict = field(default_factory=dict)  # passed to every retriever factory
    per_retriever: dict[str, dict] = field(default_factory=dict)  # name -> its own options ([retrieve.NAME])
    embed_model: str = ""  # "": the index's own; another than the one it was built with is refused (IndexMismatch)

    @property
    def filtering(self) -> bool:
        return bool(self.since or self.until or self.source)


def search_options(settings: Settings | None = None, since: str | None = None, until: str | None = None,
                   source: str | None = None, recency: str | None = None, recency_weight: float | None = None,
                   documents: bool = False, **overrides) -> SearchOptions:
    """SearchOptions from Settings (defaults < ragchain.toml < env < flags, already merged), plus the
    per-command filters as the user typed them (`2024-01-01`, `30d`); `overrides` set fields directly.
    The CLI, `eval` and bench/ all build their options here, so they run the same defaults."""
    settings = settings or Settings()
    weight = settings.recency_weight if recency_weight is None else recency_weight
    if not 0.0 <= weight <= 1.0:
        raise UsageError("--recency-weight must be between 0 and 1")
    weights = parse_weights(settings.weights) if isinstance(settings.weights, str) else dict(settings.weights)
    reranker_options = {"llm": LLMRef.of(settings), "n_ctx": settings.n_ctx}
    if settings.rerank:
        reranker_options.update(settings.options_for("rerank", settings.rerank))
    if settings.reranker_model:
        reranker_options["model"] = settings.reranker_model
    if settings.rerank_instruction:
        reranker_options["instruction"] = settings.rerank_instruction
    options = SearchOptions(
        retrievers=settings.retriever_names(), fusion=settings.fusion, rrf_k=settings.rrf_k, norm=settings.norm,
        weights=weights, depth=settings.depth, k=settings.k,
        since=parse_bound(since) if since else None, until=parse_bound(until, upper=True) if until else None,
        source=source or "", recency=parse_duration(recency) if recency else None, recency_weight=weight,
        documents=documents, document_fusion=settings.document_fusion, passage_decay=settings.passage_decay,
        whole_documents=settings.whole_documents, latest=settings.versions_mode() == "latest", spelling=settings.spelling,
        rerank=settings.rerank, rerank_depth=settings.rerank_depth,
        reranker_options=reranker_options, llm=LLMRef.of(settings), n_ctx=settings.n_ctx, expand=settings.expand,
        retriever_options={"hyde_passages": settings.hyde_passages, "hyde_template": settings.hyde_template},
        per_retriever={name: settings.options_for("retrieve", name) for name in settings.retriever_names()},
        embed_model=settings.embed_model if "embed_model" in settings.given else "",  # as ingest_options: only when set
    )
    return dataclasses.replace(options, **overrides)


class SearchPipeline:
    def __init__(self, index: Index, options: SearchOptions) -> None:
        if not options.retrievers:
            raise UsageError("no retriever selected", f"choose from: {', '.join(RETRIEVERS.names())}")
        if options.embed_model:  # the queries must be embedded as the chunks were: refused as ingest refuses it
            from ..stores.embedders import model_reference

            index.require({"embed_model": model_reference(options.embed_model)})
        self.index = index
        self.options = options
        self.linker = Linker(index.docstore)
        self.ranker = DocumentRanker(self.linker, options.passage_decay)
        self.versions = VersionView.load(index.docstore.conn, with_chunks=options.latest)
        self.timings: dict[str, float] = defaultdict(float)
        extra = {"llm": options.llm, "n_ctx": options.n_ctx, **options.retriever_options}
        self.retrievers = {name: self._timed(f"load_{name}", RETRIEVERS.create, name, index=index,
                                             **{**extra, **options.per_retriever.get(name, {})})
                           for name in options.retrievers}
        if self.fuses_documents and options.whole_documents and "bm25" in self.retrievers and index.has_documents():
            from .bm25 import BM25DocumentRetriever

            self.retrievers[BM25DocumentRetriever.name] = BM25DocumentRetriever(index)
        self.speller = speller_for(index) if options.spelling else None
        self.spelled: OrderedDict[str, Spelling] = OrderedDict()  # the last SPELLED queries with a corrected word
        self.expander = None
        if options.expand:
            from .expand import QueryExpander

            self.expander = self._timed("load_expand", QueryExpander, llm=options.llm, n_ctx=options.n_ctx)
        self.reranker = None
        if options.rerank:
            from ..rerank import RERANKERS

            self.reranker = self._timed("load_rerank", RERANKERS.create, options.rerank, **options.reranker_options)
        # A process that keeps this pipeline for good may then take what is loaded out of the cyclic
        # collector's scans (offline.freeze_loaded; the CLI does): the library never does it for its host.

    def _timed(self, stage: str, fn, *args, **kwargs):
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            self.timings[stage] += time.perf_counter() - started

    def expansion_error(self, query: str) -> str:
        """Why the LLM expansion of `query` could not be used ('' when it was, or --expand is off)."""
        return self.expander.failed.get(self.spelling_of(query).text, "") if self.expander is not None else ""

    def search(self, query: str) -> list[Hit]:
        return self.search_many([query])[0]

    def search_many(self, queries: list[str]) -> list[list[Hit]]:
        """Each query's hits; a blank query has none (a dense search would return arbitrary ones)."""
        asked = list(dict.fromkeys(q for q in queries if q.strip()))
        searched = [self._correct(q) for q in asked]
        found = dict(zip(asked, self._search_asked(searched))) if asked else {}
        return [found.get(q, []) for q in queries]

    def _correct(self, asked: str) -> str:
        """The query as it is searched: normalised as the stored text is (normalize.py: where
        every query enters the search), and with spelling on, words no chunk holds corrected (kept
        in `spelled`)."""
        query = normalize(asked)
        if self.speller is None:
            return query
        spelling = self._timed("spelling", self.speller.correct, query)
        if spelling.changes:
            self.spelled[asked] = spelling
            self.spelled.move_to_end(asked)
            while len(self.spelled) > SPELLED:
                self.spelled.popitem(last=False)
        return spelling.text

    def spelling_of(self, query: str) -> Spelling:
        """How a query was spelled when searched: normalised, and a word no chunk holds corrected."""
        return self.spelled.get(query) or Spelling(normalize(query))

    def _search_asked(self, queries: list[str]) -> list[list[Hit]]:
        opts = self.options
        results = []
        for query, runs in zip(queries, self.retrieve_runs(queries)):
            weights = self.expander.weights(runs, opts.weights) if self.expander else opts.weights or None
            fused = self._timed("fuse", self.fuse, opts.fusion, runs, k=opts.rrf_k, norm=opts.norm, weights=weights)
            results.append(self.finish(query, fused))
        return results

    @property
    def fuses_documents(self) -> bool:
        return self.options.documents and self.options.document_fusion

    def fuse(self, method: str, runs, **options) -> list[Hit]:
        """fusion.fuse over chunks, or over documents (each list collapsed first) with document_fusion."""
        if not self.fuses_documents:
            return fuse(method, runs, **options)
        return self.ranker.rank(method, runs, limit=self.document_limit, **options)

    @property
    def document_limit(self) -> int:
        """Fused documents worth a shown chunk: every candidate when later steps drop, re-weigh or
        rerank them; otherwise the top k and some slack (for documents the docstore no longer holds)."""
        opts = self.options
        if opts.filtering or opts.recency or opts.latest or self.reranker is not None:
            return self.candidate_depth
        return opts.k + DOCUMENT_SLACK

    @property
    def candidate_depth(self) -> int:
        """How many candidates each retriever returns, and the fused documents kept."""
        return max(self.options.depth, self.options.k) * (FILTER_OVERFETCH if self.options.filtering else 1)

    def retrieve_runs(self, queries: list[str]) -> list[dict[str, list[Hit]]]:
        """Each query's ranked list from every retriever, before fusion; with expand, also the
        generated queries' lists (`bm25~sub1`...) from the retrievers that do not call an LLM."""
        runs = self.base_runs(queries)
        if self.expander is not None:
            plain = [name for name, r in self.retrievers.items() if not getattr(r, "uses_llm", False)]
            runs = self._timed("expand", self.expander.add_runs, queries, runs, lambda qs: self.base_runs(qs, plain))
        return runs

    def base_runs(self, queries: list[str], names: list[str] | None = None) -> list[dict[str, list[Hit]]]:
        """Each query's ranked list from the named retrievers (default all), batched per retriever."""
        depth = self.candidate_depth
        names = list(self.retrievers if names is None else names)

        def run(name: str) -> tuple[str, list[list[Hit]]]:
            return name, self._timed(name, search_many, self.retrievers[name], queries, depth)

        if len(names) > 1:  # Tantivy, LanceDB and the encoder's BLAS calls release the GIL: overlap them
            with ThreadPoolExecutor(len(names)) as pool:
                per_retriever = dict(pool.map(run, names))
        else:
            per_retriever = dict(map(run, names))
        return [{name: lists[i] for name, lists in per_retriever.items()} for i in range(len(queries))]

    def finish(self, query: str, hits: list[Hit]) -> list[Hit]:
        """Fused hits -> linked, filtered, recency-weighted, reranked, collapsed, top k, hydrated.

        The docstore is read only as far as needed: every candidate's chunk for filters and
        recency, every candidate's document ID for --documents, and otherwise only the reranker's
        head and the final top k (IDs the docstore does not hold are skipped on the way).
        """
        opts = self.options
        hits, dropped = self.versions.drop_older(hits) if opts.latest else (hits, {})
        if opts.filtering or opts.recency:
            hits = self._timed("hydrate", self.linker.hydrate, hits)
        elif opts.documents and not self.fuses_documents:  # the ranker's hits are linked already
            hits = self._timed("hydrate", self.linker.link, hits)
        if opts.filtering:
            hits = [h for h in hits if self._keep(h)]
        if opts.recency:
            dates = {h.chunk_id: h.chunk.date for h in hits}
            hits = recency_boost(hits, dates, opts.recency, opts.recency_weight)
        if self.reranker is not None:
            hits = self._rerank(query, hits)
        if opts.documents:
            hits = collapse_to_documents(hits)
        return self.versions.annotate(self._timed("hydrate", self._first, hits, opts.k)[0], dropped)

    def _first(self, hits: list[Hit], n: int) -> tuple[list[Hit], int]:
        """The first n hits the docstore holds, hydrated in place, and how many inputs that took."""
        kept: list[Hit] = []
        used = 0
        while len(kept) < n and used < len(hits):
            batch = hits[used : used + n - len(kept) + 8]  # a little slack for IDs the docstore lacks
            held = {h.chunk_id for h in self.linker.hydrate(batch)}
            for hit in batch:
                used += 1
                if hit.chunk_id in held:
                    kept.append(hit)
                    if len(kept) == n:
                        break
        return kept, used

    def _rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
        """Rerank the head; the tail keeps its order, placed below the head's lowest score."""
        depth = self.options.rerank_depth
        head, used = self._timed("hydrate", self._first, hits, depth)
        head = self._timed("rerank", self.reranker.rerank, query, head)
        floor = min((h.score for h in head), default=0.0)
        tail = hits[used:]
        for i, hit in enumerate(tail, start=1):
            hit.explain.setdefault("fused", (used + i, hit.score))
            hit.score = floor - i
        return head + tail

    def _keep(self, hit: Hit) -> bool:
        chunk = hit.chunk
        if (self.options.since or self.options.until) and not within(chunk.date, self.options.since,
                                                                        self.options.until):
            return False
        pattern = self.options.source
        return not pattern or fnmatch.fnmatch(chunk.doc_id, pattern) or fnmatch.fnmatch(chunk.source, pattern)
