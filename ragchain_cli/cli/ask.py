"""`ragchain ask QUESTION|-`: retrieve, then answer with the local model, citing in code."""

from __future__ import annotations

import sys
import time
from typing import Annotated, Optional

import typer

from .common import (ConfigOpt, DepthOpt, ExpandOpt, FusionOpt, IndexOpt, JsonOpt, KOpt, LatestOpt, NormOpt, RecencyOpt,
                     RecencyWeightOpt, RerankDepthOpt, RerankerModelOpt, RerankInstructionOpt, RerankOpt,
                     RetrieversOpt, RrfKOpt, SinceOpt, SourceOpt, UntilOpt, WeightsOpt, open_index, require_text,
                     search_options, settings_from, settle)
from .output import Output, stderr
from .search import hit_payload, stdin_lines

MIN_SIMILARITY = 0.2


def ask_command(
    question: Annotated[str, typer.Argument(help="The question, or - to read one question a line from stdin")],
    index: IndexOpt = None, as_json: JsonOpt = None, config: ConfigOpt = None,
    retrievers: RetrieversOpt = None, fusion: FusionOpt = None, k: KOpt = None, depth: DepthOpt = None,
    rrf_k: RrfKOpt = None, norm: NormOpt = None, weights: WeightsOpt = None,
    rerank: RerankOpt = None, rerank_depth: RerankDepthOpt = None, reranker_model: RerankerModelOpt = None,
    rerank_instruction: RerankInstructionOpt = None,
    since: SinceOpt = None, until: UntilOpt = None, source: SourceOpt = None,
    recency: RecencyOpt = None, recency_weight: RecencyWeightOpt = 0.3, expand: ExpandOpt = None,
    llm: Annotated[Optional[str], typer.Option("--llm", help="Catalogue name or path to a GGUF file")] = None,
    n_ctx: Annotated[Optional[int], typer.Option("--n-ctx", help="Model context window in tokens")] = None,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Longest answer in tokens")] = 256,
    context_tokens: Annotated[int, typer.Option(
        "--context-tokens", help="Most passage tokens put in the prompt (prompt time grows with it)")] = 1536,
    min_similarity: Annotated[float, typer.Option(
        "--min-similarity", help="Below this best dense cosine the retrieval counts as irrelevant")] = MIN_SIMILARITY,
    no_generate: Annotated[bool, typer.Option("--no-generate", help="Print the retrieved context only")] = False,
    latest: LatestOpt = None,
) -> None:
    """Answer a question from the index with the local model, with numbered citations."""
    require_text(question, "question")
    from ..retrieve.pipeline import SearchPipeline

    settings = settings_from(config, index=index, retrievers=retrievers, fusion=fusion, k=k, depth=depth,
                             rrf_k=rrf_k, norm=norm, weights=weights, rerank=rerank, rerank_depth=rerank_depth,
                             reranker_model=reranker_model, rerank_instruction=rerank_instruction,
                             llm=llm, n_ctx=n_ctx, expand=expand, latest=latest)
    options = search_options(settings, since, until, source, recency, recency_weight)
    out = Output(as_json)
    store = open_index(settings)
    try:
        pipeline = SearchPipeline(store, options)
        model = None if no_generate else _load_llm(settings)
        settle(pipeline)
        questions = _stdin_questions() if question == "-" else [question]
        for text in questions:
            payload = _answer(pipeline, model, text, (max_tokens, context_tokens), min_similarity,
                              stream=_streams(out, question))
            if question == "-":
                out.line(payload)
            else:
                out.data(payload, lambda console: _render(console, payload))
    finally:
        store.close()


def _load_llm(settings):
    from ..generate import LocalLLM, resolve_model

    started = time.perf_counter()
    model = LocalLLM(resolve_model(settings.llm or None), n_ctx=settings.n_ctx)
    stderr.print(f"[dim]model {model.path.name} loaded in {time.perf_counter() - started:.1f}s[/]")
    return model


def _stdin_questions() -> list[str]:
    return [line.strip() for line in stdin_lines() if line.strip()]


def _streams(out: Output, question: str) -> bool:
    return not out.json and question != "-" and sys.stdout.isatty()


def relevant(hits, min_similarity: float) -> bool:
    """A retrieval is relevant when some hit's dense cosine reaches the floor (or, without a
    dense retriever, when any lexical hit exists)."""
    dense = [h.explain["dense"][1] for h in hits if "dense" in h.explain]
    if dense:
        return max(dense) >= min_similarity
    return bool(hits) and all("dense" not in h.explain for h in hits)


def _answer(pipeline, model, question: str, lengths: tuple[int, int], min_similarity: float, stream: bool) -> dict:
    from ..generate import answer_question, context_budget

    started = time.perf_counter()
    hits = pipeline.search(question)
    retrieval = time.perf_counter() - started
    timings = {"retrieve": round(retrieval, 4)}
    if model is None:
        return {"question": question, "hits": [hit_payload(i, h) for i, h in enumerate(hits, 1)], "timings": timings}
    usable = hits if relevant(hits, min_similarity) else []
    on_token = (lambda piece: (sys.stdout.write(piece), sys.stdout.flush())) if stream else None
    max_tokens, context_tokens = lengths
    budget = min(context_tokens, context_budget(question, model, max_tokens))
    answer = answer_question(question, usable, model, budget_tokens=budget, max_tokens=max_tokens, on_token=on_token)
    if stream:
        sys.stdout.write("\n")
    timings.update({k: round(v, 4) for k, v in answer.timings.items()})
    timings["total"] = round(time.perf_counter() - started, 4)
    citations = [{"number": c.number, "chunk_id": c.chunk_id, "doc_id": c.doc_id, "source": c.source,
                  "page": c.page, "cited": getattr(c, "cited", True)} for c in answer.citations]
    return {"question": question, "answer": answer.text, "citations": citations, "streamed": stream,
            "hits": [hit_payload(i, h) for i, h in enumerate(answer.hits, 1)], "timings": timings}


def _render(console, payload: dict) -> None:
    from rich.markup import escape

    if "answer" not in payload:
        from .search import render

        return render(console, payload)
    if not payload["streamed"]:
        console.print(escape(payload["answer"]))
    cited = [c for c in payload["citations"] if c["cited"]]
    label = "Sources" if cited else "Sources consulted (the model cited none)"
    if payload["citations"]:
        console.print(f"\n[bold]{label}[/]")
    for c in payload["citations"]:
        page = f" p.{c['page']}" if c["page"] else ""
        console.print(f"  [{c['number']}] {escape(c['doc_id'])}{page}  [dim]{c['chunk_id']}[/]")
    replaced = {old: h["doc_id"] for h in payload["hits"] for old in h["older_versions"]}
    for old, new in replaced.items():  # --latest dropped these
        console.print(f"  [dim]older version {escape(old)} also matched; answered from {escape(new)}[/]")
    t = payload["timings"]
    console.print(f"[dim]retrieve {t['retrieve']:.2f}s  first token {t.get('first_token', 0):.2f}s  "
                  f"total {t.get('total', 0):.2f}s[/]")
