"""The `eval` workflow as library calls: evaluate_runs (IR metrics of configurations or run files
over judged queries, the payload `ragchain eval QRELS` prints) and tune_fusion, and their steps:
configurations from settings, runs over judged queries, run files written, fusion tuned, the result
payload. cli/evaluate.py parses and renders."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import Settings, load_settings
from ..errors import UsageError
from ..types import Run
from .compare import PERMUTATIONS, compare_runs
from .metrics import DEFAULT_METRICS, evaluate_report, metric_names, parse_metric
from .plot import plot_comparison
from .readers import read_qrels, read_queries
from .runs import read_trec_run

Configuration = tuple[str, str, object]  # (name, index folder, SearchOptions)
EVAL_DEPTH = 100  # results kept per query when no metric cutoff or -k asks for more


@dataclass(frozen=True)
class ConfigGrid:
    """The configurations an evaluation compares: one per settings file in `files`, else the
    `retrievers` x `fusion` grid (each list one value a configuration; none = the settings' own).
    `flags` are load_settings's and apply to every configuration; its "k" is the results kept per
    query, else the deepest metric cutoff and at least EVAL_DEPTH. `grid_files`: the settings files
    under every grid configuration (the CLI passes ./ragchain.toml; none by default)."""

    files: Sequence[Path] | None = None
    retrievers: Sequence[str] | None = None
    fusion: Sequence[str] | None = None
    flags: Mapping[str, Any] = field(default_factory=dict)
    grid_files: Sequence[Path] = ()

    def settings(self) -> list[tuple[str, Settings]]:
        """(name, Settings) per configuration."""
        return named_settings(self.files, self.retrievers, self.fusion, dict(self.flags), self.grid_files)

    def engine(self) -> tuple[str, str, str]:
        """(engine, ray address, fan-out) a sharded index is searched with: its shards in this process, or
        behind Ray actors, asked at once or in turn."""
        first = self.settings()[0][1]
        return first.engine, first.ray_address, first.shard_fanout

    def configurations(self, metrics: list[str]) -> list[Configuration]:
        """(name, index folder, SearchOptions) per configuration, searching deep enough for the metrics."""
        return configurations(self.files, self.retrievers, self.fusion, dict(self.flags), metrics, self.grid_files)


def evaluate_runs(qrels: Path, queries: Path | None = None, *, grid: ConfigGrid | None = None,
                  run_files: Sequence[Path] | None = None, metrics: str | Sequence[str] = DEFAULT_METRICS,
                  per_query: bool = False, permutations: int = PERMUTATIONS, run_out: Path | None = None,
                  plot: Path | None = None, on_run: Callable[[str, int, float], None] = lambda *_: None,
                  on_written: Callable[[str, str], None] = lambda *_: None,
                  prepare: Callable[[Any], Any] = lambda pipeline: pipeline) -> dict:
    """IR metrics of several configurations side by side, the first the baseline, with paired
    randomization tests (`permutations` samples) against it: the payload `ragchain eval` prints.

    The runs are read from TREC `run_files` (nothing is searched), else made by searching each of
    `grid`'s configurations for the judged `queries` (BEIR JSONL or id<TAB>text); on_run(name,
    queries, seconds) after each, `prepare` as in run_all. `run_out` writes them (write_runs;
    on_written(name, path) for each file), `per_query` adds per-query values and `plot` draws a PNG."""
    names = metric_names(metrics)
    judged = read_qrels(qrels)
    if run_files:
        runs = {Path(p).name: read_trec_run(p) for p in run_files}
        header: dict = {"qrels": str(qrels), "source": "runs"}
    else:
        grid = grid or ConfigGrid()
        texts, header, configs = _judged(qrels, queries, judged, grid, names)
        runs, header["seconds"] = run_all(configs, texts, prepare=prepare, engine=grid.engine(),
                                          on_done=lambda name, seconds: on_run(name, len(texts), seconds))
        if run_out:
            header["runs_written"] = write_runs(runs, run_out)
            for name, path in header["runs_written"].items():
                on_written(name, path)
    table = compare_runs(judged, runs, names, permutations=permutations)
    result = payload(header, table, runs, judged, names, per_query)
    if plot:
        result["plot"] = str(plot_comparison(table, plot))
    return result


def tune_fusion(qrels: Path, queries: Path | None, *, grid: ConfigGrid | None = None,
                metrics: str | Sequence[str] = DEFAULT_METRICS, out: Path = Path("ragchain.toml")) -> dict:
    """Search fusion settings for the first of `grid`'s configurations on the judged queries, by the
    first metric; write the best to `out` (settings TOML that search reads); the tuning payload."""
    names = metric_names(metrics)
    judged = read_qrels(qrels)
    grid = grid or ConfigGrid()
    texts, _, configs = _judged(qrels, queries, judged, grid, names)
    return tune_and_write(configs[0], texts, judged, names[0], out, grid.engine())


def _judged(qrels: Path, queries: Path | None, judged: dict, grid: ConfigGrid,
            names: list[str]) -> tuple[dict[str, str], dict, list[Configuration]]:
    """The judged queries' texts, the payload's header and the configurations to search them with."""
    if queries is None:
        raise UsageError("--queries is required unless --run is given", "pass --queries queries.jsonl")
    texts, counts = judged_queries(read_queries(queries), judged)
    header = {"qrels": str(qrels), "queries_file": str(queries), **counts}
    return texts, header, grid.configurations(names)


def judged_queries(texts: dict[str, str], judged: dict) -> tuple[dict[str, str], dict]:
    """The queries that have judgements, and the counts of what was read, kept and skipped."""
    kept = {qid: text for qid, text in texts.items() if qid in judged}
    counts = {"queries_read": len(texts), "queries_judged": len(kept),
              "queries_skipped_unjudged": len(texts) - len(kept),
              "judged_without_text": len(set(judged) - set(texts))}
    return kept, counts


def named_settings(config: list[Path] | None, retrievers: list[str] | None, fusion: list[str] | None,
                   flags: dict, grid_files: Sequence[Path] = ()) -> list[tuple[str, Settings]]:
    """(name, Settings) per configuration: one per --config file, or the retrievers x fusion grid
    over `grid_files`."""
    if config:
        return [(p.stem, load_settings(flags, config_files=[p])) for p in config]
    return [(_name(r, f, retrievers, fusion),
             load_settings({**flags, "retrievers": r, "fusion": f}, config_files=list(grid_files)))
            for r in (retrievers or [None]) for f in (fusion or [None])]


def configurations(config: list[Path] | None, retrievers: list[str] | None, fusion: list[str] | None,
                   flags: dict, metric_names: list[str], grid_files: Sequence[Path] = ()) -> list[Configuration]:
    """One configuration per --config file, or the retrievers x fusion grid, each at document level."""
    from ..retrieve.pipeline import search_options

    cutoffs = [parse_metric(m).k or 0 for m in metric_names]
    depth = max([EVAL_DEPTH, *cutoffs])
    out = []
    for name, s in named_settings(config, retrievers, fusion, flags, grid_files):
        s.k = flags.get("k") or depth
        out.append((name, s.index, search_options(s, documents=True)))
    return out


def _name(r, f, retrievers, fusion) -> str:
    parts = [r] if retrievers and len(retrievers) > 1 else []
    parts += [f] if fusion and len(fusion) > 1 else []
    return "/".join(p for p in parts if p) or "default"


def run_all(configs: list[Configuration], texts: dict[str, str], on_done: Callable[[str, float], None] | None = None,
            prepare: Callable[[Any], Any] = lambda pipeline: pipeline,
            engine: tuple[str, str, str] = ("local", "", "auto")) -> tuple[dict[str, Run], dict[str, float]]:
    """Each configuration's run over the queries, and its seconds; on_done(name, seconds) after each.
    `prepare` sees each pipeline once it has loaded (the CLI freezes the garbage collector there);
    `engine`: (engine, ray address, fan-out) a sharded index's shards are opened with (stores/sharded.py)."""
    from ..retrieve.pipeline import SearchPipeline
    from ..stores.sharded import open_index
    from .runner import run_queries

    runs, seconds = {}, {}
    for name, index_path, options in configs:
        with open_index(Path(index_path), *engine) as store:
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


def tune_and_write(config: Configuration, texts: dict[str, str], judged: dict, metric: str, path: Path,
                   engine: tuple[str, str, str] = ("local", "", "auto")) -> dict:
    """Search fusion settings for one configuration, write the best to `path`; the tuning payload."""
    from ..retrieve.pipeline import SearchPipeline
    from ..stores.sharded import open_index
    from .tune import tune, write_settings

    _, index_path, options = config
    with open_index(Path(index_path), *engine) as store:
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
