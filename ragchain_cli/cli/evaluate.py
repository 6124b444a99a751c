"""`ragchain eval QRELS --queries F`: metrics for one or several configurations side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..evaluation.compare import PERMUTATIONS
from ..evaluation.metrics import DEFAULT_METRICS
from .common import (EngineOpt, RayAddressOpt, ExpandOpt, IndexOpt, JsonOpt, KOpt, LatestOpt, LlmModelOpt, LlmOpt, LlmTimeoutOpt, RerankDepthOpt,
                     RerankerModelOpt,
                     RerankInstructionOpt, RerankOpt, SpellingOpt, default, settle)
from .output import Output, shown, stderr


def eval_command(
    qrels: Annotated[Optional[Path], typer.Argument(metavar="QRELS", help="Judgements: BEIR TSV (with header) or TREC qrels")] = None,
    queries: Annotated[Optional[Path], typer.Option("--queries", metavar="FILE", help="BEIR JSONL or id<TAB>text")] = None,
    index: IndexOpt = None, as_json: JsonOpt = None,
    config: Annotated[Optional[list[Path]], typer.Option("--config", metavar="FILE", help="One configuration per file")] = None,
    retrievers: Annotated[Optional[list[str]], typer.Option("--retrievers", metavar="NAMES", help=f"Repeat to compare {default('retrievers')}")] = None,
    fusion: Annotated[Optional[list[str]], typer.Option("--fusion", metavar="rrf|cc", help=f"Repeat to compare: rrf, cc {default('fusion')}")] = None,
    rerank: RerankOpt = None, rerank_depth: RerankDepthOpt = None, reranker_model: RerankerModelOpt = None,
    rerank_instruction: RerankInstructionOpt = None,
    k: KOpt = None, llm: LlmOpt = None, llm_model: LlmModelOpt = None,
    llm_timeout: LlmTimeoutOpt = None, expand: ExpandOpt = None, latest: LatestOpt = None, spelling: SpellingOpt = None,
    metrics: Annotated[str, typer.Option("--metrics", metavar="LIST", help="e.g. ndcg@10,mrr@10,recall@100,map,p@10")] = DEFAULT_METRICS,
    run: Annotated[Optional[list[Path]], typer.Option("--run", metavar="FILE", help="Evaluate TREC run file(s), no index")] = None,
    run_out: Annotated[Optional[Path], typer.Option("--run-out", metavar="FILE", help="Write the TREC run here")] = None,
    per_query: Annotated[bool, typer.Option("--per-query", help="Include per-query values")] = False,
    plot: Annotated[Optional[Path], typer.Option("--plot", metavar="PNG", help="Draw the comparison to a PNG")] = None,
    tune: Annotated[bool, typer.Option("--tune", help="Search fusion parameters; write ragchain.toml")] = False,
    tune_out: Annotated[Path, typer.Option("--tune-out", metavar="FILE", help="Where --tune writes")] = Path("ragchain.toml"),
    permutations: Annotated[int, typer.Option("--permutations", metavar="N", help="Randomisation test samples")] = PERMUTATIONS,
    qa: Annotated[Optional[Path], typer.Option("--qa", metavar="FILE", help="Score answers against gold QA JSONL instead")] = None,
    predictions: Annotated[Optional[list[str]], typer.Option(
        "--predictions", metavar="FILE", help="With --qa: score `ask - --json` output file(s) (- = stdin), run nothing")] = None,
    engine: EngineOpt = None, ray_address: RayAddressOpt = None,
) -> None:
    """Run judged queries through the pipeline (or read runs) and report IR metrics; --qa scores answers."""
    from ..config import command_config_files
    from ..errors import UsageError
    from ..evaluation import workflow as wf

    flags = dict(index=str(index) if index is not None else None, k=k, rerank=rerank, rerank_depth=rerank_depth,
                 reranker_model=reranker_model, rerank_instruction=rerank_instruction, llm=llm, llm_model=llm_model,
                 llm_timeout=llm_timeout, expand=expand, latest=latest,
                 spelling=spelling, engine=engine, ray_address=ray_address)
    grid = wf.ConfigGrid(config, retrievers, fusion, flags, grid_files=command_config_files())  # ./ragchain.toml
    out = Output(as_json)
    if qa is not None or predictions:
        return _qa(qa, qrels, predictions, grid.settings(), out, per_query, permutations,
                   given=bool(config or retrievers or fusion or run))
    if qrels is None:
        raise UsageError("eval needs a judgements file (QRELS) or --qa GOLD.jsonl",
                         "e.g. ragchain eval qrels.tsv --queries queries.jsonl")
    if tune and not run:
        tuned = wf.tune_fusion(qrels, queries, grid=grid, metrics=metrics, out=tune_out)
        return out.data(tuned, lambda console: console.print(
            f"best {tuned['metric']} {tuned['score']:.4f} with {tuned['best']}; written to {tuned['written']}"))
    payload = wf.evaluate_runs(qrels, queries, grid=grid, run_files=run, metrics=metrics, per_query=per_query,
                               permutations=permutations, run_out=run_out, plot=plot, on_run=_ran,
                               on_written=_written, prepare=settle)
    out.data(payload, lambda console: _render(console, payload))


def _ran(name: str, queries: int, seconds: float) -> None:
    stderr.print(f"[dim]{shown(name)}: {queries} queries in {seconds:.1f}s[/]")


def _written(name: str, path: str) -> None:
    stderr.print(f"[dim]run {shown(name)} written to {shown(path)}[/]")


def _qa(gold: Path | None, qrels: Path | None, predictions, settings, out: Output, per_query: bool,
        permutations: int, given: bool) -> None:
    from ..errors import UsageError
    from .evaluate_qa import qa_command

    if gold is None or qrels is not None:
        raise UsageError("--qa takes the gold file and no QRELS argument" if gold else "--predictions needs --qa",
                         "e.g. ragchain eval --qa gold.jsonl --predictions answers.jsonl")
    if predictions and given:
        raise UsageError("--predictions scores answers already made; --config, --retrievers, --fusion and --run "
                         "do not apply", "drop them, or drop --predictions to run each configuration")
    qa_command(gold, predictions, settings, out, per_query, permutations)


def _render(console, payload: dict) -> None:
    from rich.table import Table

    table = Table(title=f"{payload['qrels']} (baseline: {payload['baseline']})")
    table.add_column("config")
    for metric in payload["metrics"]:
        table.add_column(metric, justify="right")
    for config in payload["configs"]:
        cells = []
        for metric in payload["metrics"]:
            cell = f"{config['means'][metric]:.4f}"
            if metric in config["diff"]:
                cell += f" ({config['diff'][metric]:+.4f}, p={config['p_value'][metric]:.3f})"
            cells.append(cell)
        table.add_row(config["name"], *cells)
    console.print(table)
    first = payload["configs"][0]["counts"]
    console.print(f"[dim]{first['queries']} judged queries, {first['relevant_retrieved']}/{first['relevant']} "
                  f"relevant retrieved[/]")
