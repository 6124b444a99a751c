"""`ragchain search QUERY|-`: retrieval only, no LLM. `-` reads one query a line, JSONL out."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import (EngineOpt, RayAddressOpt, ConfigOpt, DepthOpt, ExpandOpt, FusionOpt, IndexOpt, JsonOpt, KOpt, LatestOpt, LlmModelOpt, LlmOpt,
                     LlmTimeoutOpt, NormOpt, RecencyOpt,
                     RecencyWeightOpt, RerankDepthOpt, RerankerModelOpt, RerankInstructionOpt, RerankOpt,
                     RetrieversOpt, RrfKOpt, SinceOpt, SourceOpt, SpellingOpt, UntilOpt, WeightsOpt, open_index, require_text,
                     search_options, settings_from, settle)
from ..retrieve.payload import search_payload
from ..retrieve.spelling import Spelling
from ..snippets import clipped
from .output import Output, shown, stdin_lines, warn

BATCH = 64


def search_command(
    query: Annotated[str, typer.Argument(metavar="QUERY", help="The query, or - to read one query a line from stdin")],
    index: IndexOpt = None, as_json: JsonOpt = None, config: ConfigOpt = None,
    retrievers: RetrieversOpt = None, fusion: FusionOpt = None, k: KOpt = None, depth: DepthOpt = None,
    rrf_k: RrfKOpt = None, norm: NormOpt = None, weights: WeightsOpt = None,
    rerank: RerankOpt = None, rerank_depth: RerankDepthOpt = None, reranker_model: RerankerModelOpt = None,
    rerank_instruction: RerankInstructionOpt = None,
    since: SinceOpt = None, until: UntilOpt = None, source: SourceOpt = None,
    recency: RecencyOpt = None, recency_weight: RecencyWeightOpt = None, llm: LlmOpt = None,
    llm_model: LlmModelOpt = None, llm_timeout: LlmTimeoutOpt = None, expand: ExpandOpt = None,
    documents: Annotated[bool, typer.Option("--documents", help="One result per document (best chunk)")] = False,
    latest: LatestOpt = None, spelling: SpellingOpt = None, engine: EngineOpt = None, ray_address: RayAddressOpt = None,
) -> None:
    """Search the index: each hit with rank, fused score, and every retriever's rank and score."""
    require_text(query)
    from ..retrieve.pipeline import SearchPipeline

    settings = settings_from(config, index=index, retrievers=retrievers, fusion=fusion, k=k, depth=depth,
                             rrf_k=rrf_k, norm=norm, weights=weights, rerank=rerank, rerank_depth=rerank_depth,
                             reranker_model=reranker_model, rerank_instruction=rerank_instruction,
                             llm=llm, llm_model=llm_model, llm_timeout=llm_timeout, expand=expand, latest=latest,
                             spelling=spelling, engine=engine, ray_address=ray_address)
    options = search_options(settings, since, until, source, recency, recency_weight, documents)
    out = Output(as_json)
    with open_index(settings) as store:
        pipeline = settle(SearchPipeline(store, options))
        if query == "-":
            _stdin(pipeline, out)
        else:
            payload = result_payload(pipeline, query, pipeline.search(query))
            out.data(payload, lambda console: render(console, payload))


def _stdin(pipeline, out: Output) -> None:
    """One output line per input line, so `paste` and `jq` line them up: a blank line gets an
    empty result. The newline that ends the last line starts no further query."""
    queries = [line.strip() for line in stdin_lines()]
    if queries and not queries[-1]:
        queries.pop()
    for start in range(0, len(queries), BATCH):
        batch = queries[start : start + BATCH]
        for query, hits in zip(batch, pipeline.search_many(batch)):
            out.line(result_payload(pipeline, query, hits))


def result_payload(pipeline, query: str, hits) -> dict:
    """One query's result (retrieve.payload); a failed --expand is also said on stderr."""
    payload = search_payload(pipeline, query, hits)
    if payload.get("expansion_error"):
        warn(f"query expansion failed for {shown(query[:80])}: {shown(payload['expansion_error'])} "
             "(searched the query as written)")
    return payload


def render(console, payload: dict) -> None:
    if payload.get("corrected"):
        console.print(f"[dim]{shown(Spelling(payload['searched'], payload['corrected']).note())}[/]")
    if not payload["hits"]:
        console.print("[dim]no results[/]")
    for hit in payload["hits"]:
        where = hit["doc_id"] + (f" p.{hit['page']}" if hit["page"] else "")
        section = f" § {hit['section']}" if hit["section"] else ""
        console.print(f"[bold]{hit['rank']:>2}.[/] [cyan]{hit['score']:.4f}[/]  {shown(where)}{shown(section)}")
        console.print(f"    {shown(clipped(hit['snippet'], 200))}")
        if hit["superseded_by"]:
            console.print(f"    [yellow]older version of {shown(hit['superseded_by'])}[/]")
        if hit["older_versions"]:
            dropped = shown(", ".join(hit["older_versions"]))
            console.print(f"    [dim]newest version; older versions dropped: {dropped}[/]")
        explain = "  ".join(f"{n} #{e['rank']} {e['score']:.3f}" for n, e in hit["explain"].items())
        ocr = f"  ocr:{hit['ocr']}" if hit["ocr"] else ""
        console.print(f"    [dim]{explain}  chunk {hit['chunk_id']}{ocr}[/]")
