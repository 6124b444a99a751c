"""The answer workflow assembled from an index: its search pipeline as the search callable, its
lexical statistics, its query encoder, and the answer model loaded on first need (answer/ sees
none of retrieve/ or stores/; this module joins them)."""

from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator

from .gather import Search, Searched
from .versions import Lookup
from .workflow import AskOptions, AskWorkflow
from ..text.words import TermStats

Progress = Callable[[str], None]


def searcher(pipeline) -> Search:
    """The search pipeline as the answer side's search: hits, and the question as searched."""
    def search(question: str) -> Searched:
        hits = pipeline.search(question)
        spelling = pipeline.spelling_of(question)
        return Searched(hits, spelling.text, dict(spelling.changes), spelling.note() if spelling.changes else "")

    return search


@contextmanager
def open_workflow(settings, options: AskOptions | None = None, search_options=None,
                  on_progress: Progress | None = None, model=None) -> Iterator[AskWorkflow]:
    """The index, search pipeline and (loaded when first needed) model named by `settings`; `model`:
    a ChatModel to answer with instead (a library caller's own, or a test's scripted one)."""
    from ..retrieve.pipeline import SearchPipeline, search_options as options_from
    from ..retrieve.versions import VersionLookup
    from ..stores.sharded import open_index

    options = options or AskOptions(**settings.ask_fields())  # ragchain.toml, RAGCHAIN_* and flags set them
    with open_index(Path(settings.index), settings.engine, settings.ray_address, settings.shard_fanout) as index:
        pipeline = SearchPipeline(index, search_options or options_from(settings))
        stats = TermStats(total=index.lexical.count(), doc_freq=index.lexical.doc_freqs)
        encoder = getattr(pipeline.retrievers.get("dense"), "encoder", None)
        loader = (lambda: model) if model is not None else (lambda: load_model(settings, on_progress))
        versions = VersionLookup(pipeline)  # the version groups, as answer/versions.py asks them
        yield AskWorkflow(searcher(pipeline), stats, encoder, loader, options,
                          Lookup(versions.newest_of, versions.best_passage_of))


def load_model(settings, on_progress: Progress | None = None):
    """The answer model `settings.llm` names: loaded into this process, or a server's (--llm URL)."""
    from ..llm.backend import LLMRef, open_llm

    started, ref = time.perf_counter(), LLMRef.of(settings)
    if on_progress is not None:
        on_progress(f"asking {ref.source} for its model ..." if ref.served else "loading the answer model ...")
    model = open_llm(ref, settings.n_ctx)
    if on_progress is not None:
        seconds = time.perf_counter() - started
        on_progress(f"model {model.model} at {model.url} ready in {seconds:.1f}s" if ref.served
                    else f"model {model.path.name} loaded in {seconds:.1f}s")
    return model


def ask_payloads(settings, questions: Iterable[str], options: AskOptions | None = None,
                 on_progress: Progress | None = None) -> Iterator[dict]:
    """One payload per question, in order (a blank question gets an unanswered, empty one)."""
    with open_workflow(settings, options, on_progress=on_progress) as workflow:
        yield from workflow.ask_many(questions, on_progress=on_progress)
