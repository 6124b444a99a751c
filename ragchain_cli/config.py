"""Settings with one precedence: defaults < settings files < RAGCHAIN_* environment < flags.

A library caller names its settings files (load_settings(config_files=...)); with none, no file is
read. The CLI and bench/ read ./ragchain.toml when no --config is given (command_config_files).

ragchain.toml's top-level keys are the field names of Settings (`fusion = "cc"`,
`weights = {bm25 = 0.5, dense = 0.5}`); its tables [retrieve.NAME], [rerank.NAME] and [ocr]
set each component's own options (components.py). A value of the wrong type is a usage error
naming the file. The environment uses the same names upper-cased
behind RAGCHAIN_ (RAGCHAIN_INDEX, RAGCHAIN_FUSION, RAGCHAIN_LLM, ...).
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .components import KINDS, merge, options_for, split_tables
from .errors import UsageError

CONFIG_FILE = "ragchain.toml"
VERSION_MODES = ("newest", "all", "latest")
FANOUT_MODES = ("auto", "threads", "serial")  # stores/fanout.py


@dataclass
class Settings:
    index: str = ".ragchain"
    embed_model: str = "all-MiniLM-L6-v2"
    chunk_size: int = 200
    chunk_overlap: int = 40
    retrievers: str = "bm25,dense"
    fusion: str = "cc"
    rrf_k: int = 60
    norm: str = "zscore"
    weights: dict[str, float] = field(default_factory=dict)
    depth: int = 1000
    document_fusion: bool = True
    passage_decay: float = 0.0
    whole_documents: bool = True
    k: int = 10
    rerank: str = ""
    rerank_depth: int = 20
    reranker_model: str = ""
    rerank_instruction: str = ""
    llm: str = ""  # a catalogue name, a .gguf path, or an OpenAI-compatible server's URL (llm/served.py)
    llm_model: str = ""  # --llm URL: the served model's name ("": the server's only one)
    llm_timeout: float = 60.0  # --llm URL: seconds to wait for the server's answer
    n_ctx: int = 4096  # the context window of every local LLM (answers, hyde, --expand, LLM rerankers)
    # ask: how much the model reads and writes (answer/workflow.py AskOptions takes these, ask_fields())
    max_tokens: int = 64  # the longest answer; one sentence is asked for and generation stops at its end
    context_tokens: int = 360  # passage tokens the model reads (prompt reading dominates CPU time)
    passages: int = 4  # top hits whose sentences compete for the context
    focus_tokens: int = 80  # the second, focused reading of an answer not drawn from the best sentence (0: none)
    abstain: bool = True  # say the documents do not say when the evidence is weak; False: always answer
    # who decides "answerable" and "verified": the trained answer judge alone, or both it and the few word
    # checks a sealed probe showed still help (answer/verify.py, docs/JUDGE.md)
    verdicts: str = "both"
    judge_answers: float = 0.3  # the judge's probability a sentence must reach for the question to be answered
    judge_supports: float = 0.75  # ... that a cited sentence must reach for the answer to be shown verified
    # the three-way claim judge in verify (judge/claims.py): a yes/no reply verified when a cited sentence
    # entails its claim (from judge_supports), any answer its supporting sentence contradicts not verified
    claim_judge: bool = True
    # a question refused while a sentence of its passages is near it in meaning gets that sentence quoted,
    # not verified, in place of "The documents do not say" (answer/quote.py, decide.NEAR)
    quote_closest: bool = True
    # a yes/no question near its passages (decide.NEAR) is drafted even when the retrieval signals' score is
    # under its bar (the judge cannot refuse a yes/no question: it gives "yes" to almost any sentence)
    near_yes_no: bool = True
    ocr: str = "auto"
    expand: bool = False
    latest: bool = False  # search and ask: only the newest version of each version group (= versions "latest")
    versions: str = "newest"  # ask: "newest" answers from the newest version, "all" from any, "latest" = latest
    spelling: bool = True  # a query word no chunk holds, corrected to an indexed word one edit away
    hyde_passages: int = 1
    hyde_template: str = ""
    recency_weight: float = 0.3
    components: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)  # [retrieve.X], [rerank.X], [ocr]
    engine: str = "local"  # ingest: local or ray
    ray_address: str = ""  # ingest --engine ray: "" starts Ray for the run; "auto" or host:port joins a cluster
    workers: int = 0  # ingest --engine ray: embedding actors; 0 = one per GPU, else one per CPU of the cluster
    shard_fanout: str = "auto"  # a sharded index's shards asked at once (threads) or in turn (serial); stores/fanout.py
    # not a setting: the names a layer above the defaults set (ingest follows the index's model unless given)
    given: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def options_for(self, kind: str, name: str) -> dict[str, Any]:
        """What ragchain.toml's tables set for one component (kind: retrieve, rerank or ocr)."""
        return options_for(self.components, kind, name) if self.components else {}

    def versions_mode(self) -> str:
        """How `ask` treats versions: `latest = true` (or --latest) is versions "latest"."""
        return "latest" if self.latest else self.versions

    def retriever_names(self) -> list[str]:
        return [name.strip() for name in self.retrievers.split(",") if name.strip()]

    def ask_fields(self) -> dict[str, Any]:
        """ask's settings, as keyword arguments of answer.workflow.AskOptions."""
        return {**{name: getattr(self, name) for name in ASK_FIELDS}, "versions": self.versions_mode()}  # latest = true


INTERNAL = frozenset({"components", "given"})  # fields that are not flat settings
ASK_FIELDS = ("max_tokens", "context_tokens", "passages", "focus_tokens", "abstain", "versions", "verdicts",
              "judge_answers", "judge_supports", "claim_judge", "quote_closest", "near_yes_no")
VERDICTS = ("judge", "both")
DEFAULTS = Settings()  # every default, for the modules whose own parameters mirror one (never a second literal)


def _coerce(name: str, kind: Any, value: Any) -> Any:
    target = kind if isinstance(kind, type) else None
    if target is None:
        target = {"int": int, "str": str, "float": float, "bool": bool}.get(str(kind), None)
    if isinstance(value, str) and target is bool:
        if value.strip().lower() not in ("1", "true", "yes", "on", "0", "false", "no", "off", ""):
            raise UsageError(f"setting {name!r} must be true or false, got {value!r}")
        return value.strip().lower() in ("1", "true", "yes", "on")
    if isinstance(value, str) and target in (int, float):
        try:
            return target(value)
        except ValueError:
            raise UsageError(f"setting {name!r} must be a number, got {value!r}") from None
    if name == "weights":
        return parse_weights(value) if isinstance(value, str) else _weights_table(value)
    return _typed(name, target, value)


def _typed(name: str, target: type | None, value: Any) -> Any:
    """A value from ragchain.toml (already typed by TOML) checked against the setting's type."""
    if name == "retrievers" and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ",".join(value)
    wanted = {int: "a whole number", float: "a number", str: "text", bool: "true or false"}
    fits = {int: isinstance(value, int) and not isinstance(value, bool),
            float: isinstance(value, (int, float)) and not isinstance(value, bool),
            str: isinstance(value, str), bool: isinstance(value, bool)}
    if target in fits and not fits[target]:
        raise UsageError(f"setting {name!r} must be {wanted[target]}, got {value!r}")
    return float(value) if target is float else value


def _weights_table(value: Any) -> dict[str, float]:
    if not isinstance(value, dict) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value.values()):
        raise UsageError(f"setting 'weights' must map retriever names to numbers, got {value!r}",
                         "for example: weights = {bm25 = 0.4, dense = 0.6}")
    return {str(k): float(v) for k, v in value.items()}


def parse_weights(text: str) -> dict[str, float]:
    """'bm25=0.3,dense=0.7' -> {'bm25': 0.3, 'dense': 0.7}."""
    weights: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        try:
            weights[name.strip()] = float(value)
        except ValueError:
            raise UsageError(f"bad weight {part!r}", "write weights as name=number,name=number") from None
        if not sep:
            raise UsageError(f"bad weight {part!r}", "write weights as name=number,name=number")
    return weights


def _from_toml(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}", "fix or remove the config file") from None
    known = {f.name for f in fields(Settings)} - INTERNAL
    unknown = sorted(key for key in data if key not in known and not (key in KINDS and isinstance(data[key], dict)))
    if unknown:
        raise UsageError(f"{path}: unknown setting(s) {', '.join(unknown)}",
                         f"known: {', '.join(sorted(known))}, and the tables [{'], ['.join(KINDS)}]")
    flat, tables = split_tables(path, data)
    try:
        return {**_checked(flat), "components": tables} if tables else _checked(flat)
    except UsageError as exc:
        raise UsageError(f"{path}: {exc.message}", exc.hint or "fix or remove the config file") from None


def _checked(values: dict[str, Any]) -> dict[str, Any]:
    types = {f.name: f.type for f in fields(Settings)}
    return {name: _coerce(name, types[name], value) for name, value in values.items()}


def _from_env(environ: dict[str, str]) -> dict[str, Any]:
    values = {}
    for f in fields(Settings):
        if f.name in INTERNAL:  # tables only come from ragchain.toml
            continue
        raw = environ.get(f"RAGCHAIN_{f.name.upper()}")
        if raw is not None:
            values[f.name] = raw
    return values


def command_config_files(given: list[Path] | None = None) -> list[Path]:
    """The settings files a command reads: those `given` (--config), else ./ragchain.toml when there
    is one. For entry points (cli/, bench/); the library reads only the files its caller names."""
    if given:
        return list(given)
    return [Path(CONFIG_FILE)] if Path(CONFIG_FILE).is_file() else []


def load_settings(
    flags: dict[str, Any] | None = None,
    config_files: list[Path] | None = None,
    environ: dict[str, str] | None = None,
) -> Settings:
    """Merge the layers: defaults < `config_files` (none read when not given; one missing is a
    usage error) < `environ` (os.environ when not given) < `flags` (a value of None is not given)."""
    layers: list[dict[str, Any]] = []
    for path in config_files or []:
        if not path.is_file():
            raise UsageError(f"config file not found: {path}")
        layers.append(_from_toml(path))
    layers.append(_from_env(dict(os.environ) if environ is None else environ))
    layers.append({k: v for k, v in (flags or {}).items() if v is not None})
    settings = Settings()
    types = {f.name: f.type for f in fields(Settings) if f.name not in INTERNAL}
    given: set[str] = set()
    for layer in layers:
        for name, value in layer.items():
            if name == "components":
                settings.components = merge(settings.components, value)
            elif name in types:
                settings = dataclasses.replace(settings, **{name: _coerce(name, types[name], value)})
                given.add(name)
    settings.given = frozenset(given)
    for name in ("k", "depth", "rerank_depth"):
        if getattr(settings, name) < 1:
            raise UsageError(f"{name.replace('_', '-')} must be at least 1, got {getattr(settings, name)}")
    for name in ("max_tokens", "context_tokens", "passages"):
        if getattr(settings, name) < 1:
            raise UsageError(f"{name.replace('_', '-')} must be at least 1, got {getattr(settings, name)}")
    if settings.focus_tokens < 0:
        raise UsageError(f"focus-tokens must be 0 (no second reading) or more, got {settings.focus_tokens}")
    if settings.versions not in VERSION_MODES:
        raise UsageError(f"versions must be one of {', '.join(VERSION_MODES)}, got {settings.versions!r}",
                         "newest: answer from the newest version and say what changed; all: from any version; "
                         "latest: search only the newest versions")
    if settings.verdicts not in VERDICTS:
        raise UsageError(f"verdicts must be one of {', '.join(VERDICTS)}, got {settings.verdicts!r}",
                         "judge: the trained answer judge decides; both: the judge and the word checks (either refuses)")
    if settings.llm_timeout <= 0:
        raise UsageError(f"llm-timeout must be more than 0 seconds, got {settings.llm_timeout:g}")
    if settings.shard_fanout not in FANOUT_MODES:
        raise UsageError(f"shard_fanout must be one of {', '.join(FANOUT_MODES)}, got {settings.shard_fanout!r}",
                         "auto: threads on more than 2 CPUs, else serial; threads: every shard at once; serial: in turn")
    if settings.workers < 0:
        raise UsageError(f"workers must be 0 (one per CPU or GPU) or more, got {settings.workers}")
    return settings
