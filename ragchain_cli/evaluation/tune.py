"""`ragchain eval --tune`: search fusion parameters on judged queries.

The retrievers run once per query; every candidate setting is then only a fusion over the
same ranked lists, so a grid of dozens of settings costs seconds, not re-retrievals.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..config import DEFAULTS
from ..errors import UsageError
from ..types import Hit
from .metrics import evaluate
from .runner import BATCH, to_run_entry

RRF_KS = (5, 10, 20, 40, 60, 80, 100)
NORMS = ("zscore", "minmax", "dbsf")
WEIGHTS = tuple(round(0.1 * i, 1) for i in range(1, 10))


@dataclass(frozen=True)
class Trial:
    params: dict
    score: float


def grid(retrievers: list[str]) -> list[dict]:
    """rrf over k; cc over normalisation and (with two retrievers) the first one's weight."""
    settings: list[dict] = [{"fusion": "rrf", "rrf_k": k} for k in RRF_KS]
    for norm in NORMS:
        if len(retrievers) == 2:
            a, b = retrievers
            settings += [{"fusion": "cc", "norm": norm, "weights": {a: w, b: round(1 - w, 1)}} for w in WEIGHTS]
        else:
            settings.append({"fusion": "cc", "norm": norm, "weights": {}})
    return settings


def collect_runs(pipeline, queries: dict[str, str]) -> dict[str, dict[str, list[Hit]]]:
    """Per query, each retriever's list, chunks linked (document IDs known)."""
    qids = list(queries)
    out: dict[str, dict[str, list[Hit]]] = {}
    for start in range(0, len(qids), BATCH):
        batch = qids[start : start + BATCH]
        for qid, runs in zip(batch, pipeline.retrieve_runs([queries[q] for q in batch])):
            out[qid] = {name: hits if pipeline.ranker.is_whole(name) else pipeline.linker.link(hits)
                        for name, hits in runs.items()}
    return out


def tune(pipeline, queries: dict[str, str], qrels: dict, metric: str = "ndcg@10") -> list[Trial]:
    """All trials, best first (ties keep grid order)."""
    names = [name for name in pipeline.retrievers if not pipeline.ranker.is_whole(name)]  # bm25-doc follows bm25
    if len(names) < 2:
        raise UsageError("--tune needs at least two retrievers to fuse", "pass --retrievers bm25,dense")
    runs = collect_runs(pipeline, queries)
    trials = []
    for params in grid(names):
        options = {"k": params.get("rrf_k", DEFAULTS.rrf_k), "norm": params.get("norm", DEFAULTS.norm),
                   "weights": params.get("weights") or None}
        run = {qid: to_run_entry(pipeline.fuse(params["fusion"], lists, **options)) for qid, lists in runs.items()}
        trials.append(Trial(params, evaluate(qrels, run, [metric])[metric]))
    return sorted(trials, key=lambda t: -t.score)


def write_settings(path: Path, params: dict) -> None:
    """Merge the chosen fusion settings into a flat ragchain.toml, keeping its other keys."""
    current = tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    for key in ("rrf_k", "norm", "weights"):
        current.pop(key, None)
    current.update(params)
    lines = [f"{key} = {_toml_value(value)}" for key, value in current.items()]
    path.write_text("# written by `ragchain eval --tune`\n" + "\n".join(lines) + "\n", encoding="utf-8")


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f'"{k}" = {_toml_value(v)}' for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    escaped = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'
