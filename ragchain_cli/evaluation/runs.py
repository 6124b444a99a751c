"""TREC run files: `qid Q0 docid rank score tag`, one retrieved document per line.

Written rankings follow ragchain's one ordering rule, `(-score, docid)`, with ranks from 1.
Scores are written with `repr(float)` so they read back bit-identical: rounding them (as `%.6f`
would) can create ties that were not there and so change what trec_eval computes.
"""

from __future__ import annotations

import gzip
import math
import os
import re
from collections.abc import Mapping
from typing import TextIO

from ..errors import InputFormatError, UsageError
from ..types import Run
from .readers import PathLike, iter_lines


_RANK = re.compile(r"[+-]?[0-9]+")


def ranked(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    """(docid, score) pairs in ragchain order: descending score, ties by ascending docid."""
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def format_run(run: Mapping[str, Mapping[str, float]], tag: str) -> list[str]:
    """The lines of a TREC run (without newlines), queries in the run's own order."""
    _check_token("tag", tag)
    lines = []
    for qid, scores in run.items():
        _check_token("query id", qid)
        for rank, (docid, score) in enumerate(ranked(scores), start=1):
            _check_token("document id", docid)
            lines.append(f"{qid} Q0 {docid} {rank} {float(score)!r} {tag}")
    return lines


def write_trec_run(run: Mapping[str, Mapping[str, float]], file_or_path: PathLike | TextIO, tag: str) -> None:
    """Write `run` as a TREC run to an open text file or a path (gzip-compressed when it ends in `.gz`)."""
    text = "".join(line + "\n" for line in format_run(run, tag))
    if hasattr(file_or_path, "write"):
        file_or_path.write(text)
        return
    name = os.fspath(file_or_path)
    opener = gzip.open if name.endswith(".gz") else open
    with opener(name, "wt", encoding="utf-8") as handle:
        handle.write(text)


def _check_token(what: str, value: str) -> None:
    if not value or any(char.isspace() for char in value):
        raise UsageError(f"{what} {value!r} cannot be written to a TREC run", "use ids without whitespace")


def read_trec_run(path: PathLike) -> Run:
    """Read a TREC run into {qid: {docid: score}}; the rank column is checked but not used (as in trec_eval)."""
    name = os.fspath(path)
    run: Run = {}
    for number, line in iter_lines(path):
        fields = line.split()
        if len(fields) != 6:
            reason = f"expected 6 columns (qid Q0 docid rank score tag), found {len(fields)}"
            raise InputFormatError(name, number, reason)
        qid, _, docid, rank, score, _ = fields
        if not _RANK.fullmatch(rank):
            raise InputFormatError(name, number, f"rank must be an integer, got {rank!r}")
        scores = run.setdefault(qid, {})
        if docid in scores:
            raise InputFormatError(name, number, f"document {docid!r} appears twice for query {qid!r}")
        scores[docid] = _parse_score(name, number, score)
    return run


def _parse_score(name: str, number: int, field: str) -> float:
    try:
        score = float(field)
    except ValueError as exc:
        raise InputFormatError(name, number, f"score must be a number, got {field!r}") from exc
    if math.isnan(score):
        raise InputFormatError(name, number, "score is NaN")
    return score
