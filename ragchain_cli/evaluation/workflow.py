"""The `eval` workflow as library calls: configurations from settings, runs over judged queries,
run files written, fusion tuned, and the result payload. cli/evaluate.py parses and renders."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..config import Settings, load_settings
from ..types import Run
from .metrics import evaluate_report, parse_metric

Configuration = tuple[str, str, object]  # (name, index folder, SearchOptions)
EVAL_DEPTH = 100  # results kept per query when no metric cutoff or -k asks for more


def judged_queries(texts: dict[str, str], judged: dict) -> tuple[dict[str, str], dict]:
    """The queries that have judgements, and the counts of what was read, kept and skipped."""
    kept = {qid: text for qid, text in texts.items() if qid in judged}
    counts = {"queries_read": len(texts), "queries_judged": len(kept),
              "queries_skipped_unjudged": len(texts) - len(kept),
              "judged_without_text": len(set(judged) - set(texts))}
    return kept, counts


def named_settings(config: list[Path] | None, retrievers: list[str] | None, fusion: list[str] | None,
                   flags: dict) -> list[tuple[str, Settings]]:
    """(name, Settings) per configuration: one per --config file, or the retrievers x fusion grid."""
    if config:
        return [(p.stem, load_settings(flags, config_files=[p])) for p in config]
    return [(_name(r, f, retrievers, fusion), load_settings({**flags, "retrievers": r, "fusion": f}))
            for r in (retrievers or [None]) for f in (fusion or [None])]


def configurations(config: list[Path] | None, retrievers: list[str] | None, fusion: list[str] | None,
                   flags: dict, metric_names: list[str]) -> list[Configuration]:
    """One configuration per --config file, or the retrievers x fusion grid, each at document level."""
    from ..retrieve.pipeline import search_options

    cutoffs = [parse_metric(m).k or 0 for m in metric_names]
    depth = max([EVAL_DEPTH, *cutoffs])
    out = []
    for name, s in named_settings(config, retrievers, fusion, flags):
        s.k = flags.get("k") or depth
        out.append((name, s.index, search_options(s, documents=True)))
    return out


def _name(r, f, retrievers, fusion) -> str:
    parts = [r] if retrievers and len(retrievers) > 1 else []
    parts += [f] if fusion and len(fusion) > 1 else []
    return "/".join(p for p in parts if p) or "default"


def run_all(configs: list[Configuration], texts: dict[str, str], on_done: Callable[[str, float], None] | None = None,
            prepare: Callable[[Any], Any] = lambda pipeline: pipeline) -> tuple[dict[str, Run], dict[str, float]]:
    """Each configuration's run over the queries, and its seconds; on_done(name, seconds) after each.
    `prepare` sees each pipeline once it has loaded (the CLI freezes the garbage collector there)."""
    from ..retrieve.pipeline import SearchPipeline
    from ..stores.sharded import open_index
    from .runner import run_queries

    runs, seconds = {}, {}
    for name, index_path, options in configs:
        with open_index(Path(index_path)) as store:
            started = time.perf_counter()
            runs[name] = run_queries(prepare(SearchPipeline(store, options)), texts)
            seconds[name] = round(time.perf_counter() - started, 3)
        if on_done is not None:
            on_done(name, seconds[name])
    return runs, seconds


def write_runs(runs: dict[str, Run], target: Path) -> dict[str, str]:
    """One TREC run file per configuration (FILE, or FILE's name + .CONFIG when several); {config: path}."""
    from .runs import write_trec_run

    written = {}
    for name, run in runs.items():
        path = target if len(runs) == 1 else target.with_name(f"{target.stem}.{_slug(name)}{target.suffix}")
        write_trec_run(run, path, tag=f"ragchain-{_slug(name)}")
        written[name] = str(path)
    return written


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "run"


def tune_and_write(config: Configuration, texts: dict[str, str], judged: dict, metric: str, path: Path) -> dict:
    """Search fusion settings for one configuration, write the best to `path`; the tuning payload."""
    from ..retrieve.pipeline import SearchPipeline
    from ..stores.sharded import open_index
    from .tune import tune, write_settings

    _, index_path, options = config
    with open_index(Path(index_path)) as store:
        trials = tune(SearchPipeline(store, options), texts, judged, metric)
    write_settings(path, trials[0].params)
    return {"metric": metric, "best": trials[0].params, "score": trials[0].score, "written": str(path),
            "trials": [{"params": t.params, "score": t.score} for t in trials]}


def payload(header: dict, table, runs: dict[str, Run], judged: dict, metric_names: list[str],
            per_query: bool) -> dict:
    """The comparison as one JSON-ready dict: header, means, differences, p-values and counts."""
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
