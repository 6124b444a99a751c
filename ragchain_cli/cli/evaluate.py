"""`ragchain eval QRELS --queries F`: metrics for one or several configurations side by side."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import (ExpandOpt, IndexOpt, JsonOpt, KOpt, LatestOpt, LlmOpt, RerankDepthOpt, RerankerModelOpt,
                     RerankInstructionOpt, RerankOpt, search_options, settle)
from .output import Output, shown, stderr

DEFAULT_METRICS = "ndcg@10,mrr@10,recall@100,map"


def eval_command(
    qrels: Annotated[Optional[Path], typer.Argument(help="Judgements: BEIR TSV (with header) or TREC qrels")] = None,
    queries: Annotated[Optional[Path], typer.Option("--queries", help="BEIR JSONL or id<TAB>text")] = None,
    index: IndexOpt = None, as_json: JsonOpt = None,
    config: Annotated[Optional[list[Path]], typer.Option("--config", help="One configuration per file")] = None,
    retrievers: Annotated[Optional[list[str]], typer.Option("--retrievers", help="Repeat to compare")] = None,
    fusion: Annotated[Optional[list[str]], typer.Option("--fusion", help="Repeat to compare: rrf, cc")] = None,
    rerank: RerankOpt = None, rerank_depth: RerankDepthOpt = None, reranker_model: RerankerModelOpt = None,
    rerank_instruction: RerankInstructionOpt = None,
    k: KOpt = None, llm: LlmOpt = None, expand: ExpandOpt = None, latest: LatestOpt = None,
    metrics: Annotated[str, typer.Option("--metrics", help="e.g. ndcg@10,mrr@10,recall@100,map,p@10")] = DEFAULT_METRICS,
    run: Annotated[Optional[list[Path]], typer.Option("--run", help="Evaluate TREC run file(s), no index")] = None,
    run_out: Annotated[Optional[Path], typer.Option("--run-out", help="Write the TREC run here")] = None,
    per_query: Annotated[bool, typer.Option("--per-query", help="Include per-query values")] = False,
    plot: Annotated[Optional[Path], typer.Option("--plot", help="Draw the comparison to a PNG")] = None,
    tune: Annotated[bool, typer.Option("--tune", help="Search fusion parameters; write ragchain.toml")] = False,
    tune_out: Annotated[Path, typer.Option("--tune-out", help="Where --tune writes")] = Path("ragchain.toml"),
    permutations: Annotated[int, typer.Option("--permutations", help="Randomisation test samples")] = 10_000,
    qa: Annotated[Optional[Path], typer.Option("--qa", help="Score answers against gold QA JSONL instead")] = None,
    predictions: Annotated[Optional[list[str]], typer.Option(
        "--predictions", help="With --qa: score `ask - --json` output file(s) (- = stdin), run nothing")] = None,
) -> None:
    """Run judged queries through the pipeline (or read runs) and report IR metrics; --qa scores answers."""
    from .. import evaluation as ev
    from ..errors import UsageError

    flags = dict(index=index, k=k, rerank=rerank, rerank_depth=rerank_depth, reranker_model=reranker_model,
                 rerank_instruction=rerank_instruction, llm=llm, expand=expand, latest=latest)
    if qa is not None or predictions:
        return _qa(qa, qrels, predictions, _named_settings(config, retrievers, fusion, flags),
                   Output(as_json), per_query, permutations, given=bool(config or retrievers or fusion or run))
    if qrels is None:
        raise UsageError("eval needs a judgements file (QRELS) or --qa GOLD.jsonl",
                         "e.g. ragchain eval qrels.tsv --queries queries.jsonl")
    metric_names = [m.strip() for m in metrics.split(",") if m.strip()]
    for name in metric_names:
        ev.parse_metric(name)
    judged = ev.read_qrels(qrels)
    out = Output(as_json)
    if run:
        runs = {p.name: ev.read_trec_run(p) for p in run}
        header = {"qrels": str(qrels), "source": "runs"}
    else:
        if queries is None:
            raise UsageError("--queries is required unless --run is given", "pass --queries queries.jsonl")
        texts, counts = _judged_queries(ev.read_queries(queries), judged)
        header = {"qrels": str(qrels), "queries_file": str(queries), **counts}
        configs = _configurations(config, retrievers, fusion, flags, metric_names)
        if tune:
            return _tune(configs[0][1:], texts, judged, metric_names[0], tune_out, out)
        runs, header["seconds"] = _run_all(configs, texts)
        if run_out:
            header["runs_written"] = _write_runs(runs, run_out)
    table = ev.compare_runs(judged, runs, metric_names, permutations=permutations)
    payload = _payload(header, table, runs, judged, metric_names, per_query)
    if plot:
        payload["plot"] = str(ev.plot_comparison(table, plot))
    out.data(payload, lambda console: _render(console, payload))


def _judged_queries(texts: dict[str, str], judged: dict) -> tuple[dict[str, str], dict]:
    kept = {qid: text for qid, text in texts.items() if qid in judged}
    counts = {"queries_read": len(texts), "queries_judged": len(kept),
              "queries_skipped_unjudged": len(texts) - len(kept),
              "judged_without_text": len(set(judged) - set(texts))}
    return kept, counts


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


def _named_settings(config, retrievers, fusion, flags: dict) -> list[tuple]:
    """(name, Settings) per configuration: one per --config file, or the retrievers x fusion grid."""
    from .common import settings_from

    if config:
        return [(p.stem, settings_from([p], **flags)) for p in config]
    return [(_name(r, f, retrievers, fusion), settings_from(None, retrievers=r, fusion=f, **flags))
            for r in (retrievers or [None]) for f in (fusion or [None])]


def _configurations(config, retrievers, fusion, flags: dict, metric_names: list[str]) -> list[tuple]:
    """(name, index folder, SearchOptions) per configuration: one per --config file, or the retrievers x fusion grid."""
    from ..evaluation import parse_metric

    cutoffs = [parse_metric(m).k or 0 for m in metric_names]
    depth = max([100, *cutoffs])
    out = []
    for name, s in _named_settings(config, retrievers, fusion, flags):
        s.k = flags.get("k") or depth
        out.append((name, s.index, search_options(s, documents=True)))
    return out


def _name(r, f, retrievers, fusion) -> str:
    parts = [r] if retrievers and len(retrievers) > 1 else []
    parts += [f] if fusion and len(fusion) > 1 else []
    return "/".join(p for p in parts if p) or "default"


def _run_all(configs, texts: dict[str, str]) -> tuple[dict, dict]:
    from ..evaluation.runner import run_queries
    from ..retrieve.pipeline import SearchPipeline
    from ..stores.index import Index

    runs, seconds = {}, {}
    for name, index_path, options in configs:
        store = Index(Path(index_path))
        try:
            started = time.perf_counter()
            runs[name] = run_queries(settle(SearchPipeline(store, options)), texts)
            seconds[name] = round(time.perf_counter() - started, 3)
        finally:
            store.close()
        stderr.print(f"[dim]{name}: {len(texts)} queries in {seconds[name]:.1f}s[/]")
    return runs, seconds


def _write_runs(runs: dict, target: Path) -> dict[str, str]:
    """One TREC run file per configuration (FILE, or FILE's name + .CONFIG when several); {config: path}."""
    from ..evaluation import write_trec_run

    written = {}
    for name, run in runs.items():
        path = target if len(runs) == 1 else target.with_name(f"{target.stem}.{_slug(name)}{target.suffix}")
        write_trec_run(run, path, tag=f"ragchain-{_slug(name)}")
        written[name] = str(path)
        stderr.print(f"[dim]run {shown(name)} written to {shown(str(path))}[/]")
    return written


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "run"


def _tune(config: tuple, texts, judged, metric: str, path: Path, out: Output) -> None:
    from ..evaluation.tune import tune, write_settings
    from ..retrieve.pipeline import SearchPipeline
    from ..stores.index import Index

    index_path, options = config
    store = Index(Path(index_path))
    try:
        trials = tune(SearchPipeline(store, options), texts, judged, metric)
    finally:
        store.close()
    write_settings(path, trials[0].params)
    payload = {"metric": metric, "best": trials[0].params, "score": trials[0].score, "written": str(path),
               "trials": [{"params": t.params, "score": t.score} for t in trials]}
    out.data(payload, lambda console: console.print(
        f"best {metric} {trials[0].score:.4f} with {trials[0].params}; written to {path}"))


def _payload(header, table, runs, judged, metric_names, per_query: bool) -> dict:
    from ..evaluation import evaluate_report

    configs = []
    for result in table.configs:
        report = evaluate_report(judged, runs[result.name], metric_names)
        entry = {"name": result.name, "means": result.means,
                 "diff": {m: d.diff for m, d in result.deltas.items()},
                 "p_value": {m: d.p_value for m, d in result.deltas.items()},
                 "counts": {"queries": report.num_queries, "evaluated": report.num_evaluated,
                            "missing": report.num_missing, "relevant": report.num_rel,
                            "relevant_retrieved": report.num_rel_retrieved}}
        if per_query:
            entry["per_query"] = report.per_query
        configs.append(entry)
    return {**header, "metrics": metric_names, "baseline": table.baseline, "permutations": table.permutations,
            "configs": configs}


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
