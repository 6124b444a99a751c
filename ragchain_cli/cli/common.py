"""Options shared by several commands, and the glue from flags to library settings."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..config import DEFAULTS, Settings, command_config_files, load_settings
from ..errors import UsageError
from ..offline import freeze_loaded


def default(name: str) -> str:
    """A help text's "[default X]" for setting `name`, from Settings (the one place defaults live)."""
    value = getattr(DEFAULTS, name)
    if isinstance(value, bool):
        value = "on" if value else "off"
    return f"[default {value}]"


IndexOpt = Annotated[Optional[Path], typer.Option("--index", metavar="DIR", help=f"Index folder [env RAGCHAIN_INDEX] {default('index')}")]
JsonOpt = Annotated[Optional[bool], typer.Option("--json/--no-json", help="JSON output (default when stdout is not a TTY)")]
ConfigOpt = Annotated[Optional[list[Path]], typer.Option("--config", metavar="FILE", help="Settings file(s) [default ./ragchain.toml]")]
RetrieversOpt = Annotated[Optional[str], typer.Option("--retrievers", metavar="NAMES", help=f"Comma-separated: bm25, dense, bm25-prf, dense-prf, hyde {default('retrievers')}")]
FusionOpt = Annotated[Optional[str], typer.Option("--fusion", metavar="rrf|cc", help=f"rrf or cc {default('fusion')}")]
EngineOpt = Annotated[Optional[str], typer.Option("--engine", metavar="local|ray", help="A sharded index's shards: "
                                                 f"opened in this process, or each held by a Ray actor (the ray extra) {default('engine')}")]
RayAddressOpt = Annotated[Optional[str], typer.Option("--ray-address", metavar="ADDRESS", help="--engine ray: join this "
                                                      "cluster (host:port, or auto); default: start Ray here for the run")]
KOpt = Annotated[Optional[int], typer.Option("-k", "--top-k", metavar="N", help=f"Results to return {default('k')}")]
DepthOpt = Annotated[Optional[int], typer.Option("--depth", metavar="N", help=f"Candidates per retriever before fusion {default('depth')}")]
RrfKOpt = Annotated[Optional[int], typer.Option("--rrf-k", metavar="N", help=f"RRF constant k {default('rrf_k')}")]
NormOpt = Annotated[Optional[str], typer.Option("--norm", metavar="NAME", help=f"cc normalisation: zscore, minmax, dbsf, none {default('norm')}")]
WeightsOpt = Annotated[Optional[str], typer.Option("--weights", metavar="NAME=W,...", help="Retriever weights, e.g. bm25=0.4,dense=0.6")]
RerankOpt = Annotated[Optional[str], typer.Option("--rerank", metavar="NAME", help="Reranker name (see `ragchain models`)")]
RerankDepthOpt = Annotated[Optional[int], typer.Option("--rerank-depth", metavar="N", help=f"Fused candidates the reranker sees {default('rerank_depth')}")]
RerankerModelOpt = Annotated[Optional[str], typer.Option("--reranker-model", metavar="DIR", help="Local folder for model rerankers")]
RerankInstructionOpt = Annotated[Optional[str], typer.Option("--rerank-instruction", metavar="TEXT", help="Instruction for the tart reranker (what relevant means)")]
SinceOpt = Annotated[Optional[str], typer.Option("--since", metavar="DATE|AGE", help="Only documents dated on/after (2024-01-01 or 30d)")]
UntilOpt = Annotated[Optional[str], typer.Option("--until", metavar="DATE|AGE", help="Only documents dated on/before")]
SourceOpt = Annotated[Optional[str], typer.Option("--source", metavar="GLOB", help="Only documents whose ID or path matches this glob")]
RecencyOpt = Annotated[Optional[str], typer.Option("--recency", metavar="AGE", help="Favour newer documents, half-life e.g. 30d")]
RecencyWeightOpt = Annotated[Optional[float], typer.Option("--recency-weight", metavar="W", help=f"How much recency counts, 0..1 {default('recency_weight')}")]
LatestOpt = Annotated[Optional[bool], typer.Option("--latest/--no-latest", help="Only the newest version of "
                                                   f"each version group (older versions dropped) {default('latest')}")]
VersionsOpt = Annotated[Optional[str], typer.Option(
    "--versions", metavar="newest|all|latest", help="Which version of a document answers: the newest, saying what "
    "an older version retrieved said; any (all); only the newest are searched (latest, as --latest) "
    f"{default('versions')}")]
SpellingOpt = Annotated[Optional[bool], typer.Option("--spelling/--no-spelling", help="Correct a query word no "
                                                     f"passage has to an indexed word one edit away {default('spelling')}")]
NCtxOpt = Annotated[Optional[int], typer.Option("--n-ctx", metavar="N", help=f"Model context window in tokens {default('n_ctx')}")]
LlmOpt = Annotated[Optional[str], typer.Option("--llm", metavar="NAME|GGUF|URL", help="LLM for hyde, --expand, LLM "
                                               "rerankers: catalogue name, GGUF file, or an OpenAI-compatible server's URL "
                                               "(http://127.0.0.1:8080/v1)")]
LlmModelOpt = Annotated[Optional[str], typer.Option("--llm-model", metavar="NAME", help="--llm URL: the served model's "
                                                    "name, where the server serves several [default: its only one]")]
LlmTimeoutOpt = Annotated[Optional[float], typer.Option("--llm-timeout", metavar="SECONDS", help="--llm URL: how long "
                                                        f"to wait for the server {default('llm_timeout')}")]
ExpandOpt = Annotated[Optional[bool], typer.Option("--expand/--no-expand", help="LLM query expansion: passage, "
                                                   f"sub-questions, keywords searched too and fused {default('expand')}")]


def settings_from(config: list[Path] | None, **flags) -> Settings:
    """Settings from the --config files (else ./ragchain.toml, when there is one), the environment and flags."""
    if flags.get("index") is not None:
        flags["index"] = str(flags["index"])
    return load_settings(flags, config_files=command_config_files(config))


def open_index(settings: Settings):
    from ..stores.sharded import open_index as opened

    return opened(Path(settings.index), settings.engine, settings.ray_address, settings.shard_fanout)


def search_options(settings: Settings, since=None, until=None, source=None, recency=None,
                   recency_weight: float | None = None, documents: bool = False):
    """The library's SearchOptions for these settings and filters (retrieve.pipeline.search_options)."""
    from ..retrieve.pipeline import search_options as build

    return build(settings, since, until, source, recency, recency_weight, documents)


def require_text(query: str, what: str = "query") -> str:
    """A query argument with words in it (a blank one would match nothing, or anything)."""
    if not query.strip():
        raise UsageError(f"the {what} is empty", f"pass the words to look for, or - to read one {what} a line "
                         "from stdin")
    return query


def settle(pipeline):
    """Everything loaded so far (modules, models, stores) lives until exit: take it out of the
    cyclic collector's scans (offline.freeze_loaded; app.run unfreezes when the command returns).
    Full collections over it were 5-9 ms pauses inside fusion, which put hybrid p95 at ~100 ms
    against a 40 ms p50 at 1M chunks (45 ms after; bench/scale_bench.py)."""
    freeze_loaded()
    return pipeline
