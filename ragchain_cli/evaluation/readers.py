"""Readers for relevance judgements (qrels) and queries; formats are detected from the content.

qrels:   BEIR TSV (`query-id  corpus-id  score`, optional header) or TREC (`qid iter docid rel`).
queries: BEIR JSONL (`{"_id": ..., "text": ...}`, extra fields ignored) or TSV (`id<TAB>text`).

Every problem becomes an InputFormatError naming the file and the 1-based line (0 when the
file cannot be opened at all). Blank lines are skipped; `.gz` files are decompressed on the fly.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import zlib
from collections.abc import Iterator

from ..errors import InputFormatError
from ..types import Qrels

Queries = dict[str, str]
PathLike = str | os.PathLike[str]

_INTEGER = re.compile(r"[+-]?[0-9]+(?:\.0*)?")
_QRELS_HEADER_SCORES = {"score", "relevance", "rel", "label"}
_QUERIES_HEADERS = {("id", "text"), ("_id", "text"), ("qid", "text"), ("query-id", "text"), ("qid", "query")}
_QRELS_LAYOUTS = {3: "BEIR TSV: query-id corpus-id score", 4: "TREC qrels: qid iter docid rel"}


def iter_lines(path: PathLike) -> Iterator[tuple[int, str]]:
    """Yield (line number, line without its newline) for each non-blank line of a UTF-8 file."""
    name = os.fspath(path)
    try:
        handle = gzip.open(name, "rb") if name.endswith(".gz") else open(name, "rb")
    except OSError as exc:
        raise InputFormatError(name, 0, f"cannot open file: {exc.strerror or exc}") from exc
    with handle:
        number = 0
        try:
            for number, raw in enumerate(handle, start=1):
                text = _decode(name, number, raw)
                if text.strip():
                    yield number, text
        except (OSError, EOFError, zlib.error) as exc:
            raise InputFormatError(name, number + 1, f"cannot read file: {exc}") from exc


def _decode(name: str, number: int, raw: bytes) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFormatError(name, number, f"not valid UTF-8 (byte {exc.start + 1} of the line)") from exc
    if number == 1:
        text = text.removeprefix("\ufeff")
    return text.rstrip("\r\n")


def parse_relevance(name: str, number: int, field: str) -> int:
    """An integer relevance grade; `1.0` is accepted as 1, anything else non-integral is an error."""
    if not _INTEGER.fullmatch(field):
        raise InputFormatError(name, number, f"relevance must be an integer, got {field!r}")
    return int(field.split(".")[0])


def read_qrels(path: PathLike) -> Qrels:
    """Read BEIR TSV or TREC qrels into {qid: {docid: relevance}}; the layout is fixed by the first line."""
    name = os.fspath(path)
    qrels: Qrels = {}
    width = 0
    for number, line in iter_lines(path):
        fields = line.split()
        if not width:
            width = _qrels_width(name, number, fields)
            if width == 3 and fields[2].lower() in _QRELS_HEADER_SCORES:
                continue
        if len(fields) != width:
            reason = f"expected {width} columns ({_QRELS_LAYOUTS[width]}), found {len(fields)}"
            raise InputFormatError(name, number, reason)
        qid, docid, grade = (fields[0], fields[1], fields[2]) if width == 3 else (fields[0], fields[2], fields[3])
        _add_judgement(name, number, qrels.setdefault(qid, {}), docid, parse_relevance(name, number, grade))
    if not qrels:  # said before any query is run, not after
        raise InputFormatError(name, 0, "no judgements (an empty file, or only a header line)")
    return qrels


def _qrels_width(name: str, number: int, fields: list[str]) -> int:
    if len(fields) not in _QRELS_LAYOUTS:
        layouts = " or ".join(f"{width} ({layout})" for width, layout in _QRELS_LAYOUTS.items())
        raise InputFormatError(name, number, f"expected {layouts} columns, found {len(fields)}")
    return len(fields)


def _add_judgement(name: str, number: int, judged: dict[str, int], docid: str, grade: int) -> None:
    previous = judged.setdefault(docid, grade)
    if previous != grade:
        raise InputFormatError(name, number, f"document {docid!r} judged again with {grade} (was {previous})")


def read_queries(path: PathLike) -> Queries:
    """Read BEIR JSONL or `id<TAB>text` queries into {qid: text}, in file order."""
    name = os.fspath(path)
    queries: Queries = {}
    first_lines: dict[str, int] = {}
    parse = None
    for number, line in iter_lines(path):
        if parse is None:
            parse = _parse_json_query if line.lstrip().startswith("{") else _parse_tsv_query
            if parse is _parse_tsv_query and _is_queries_header(line):
                continue
        qid, text = parse(name, number, line)
        if qid in first_lines:
            raise InputFormatError(name, number, f"duplicate query id {qid!r} (first on line {first_lines[qid]})")
        first_lines[qid] = number
        queries[qid] = text
    return queries


def _is_queries_header(line: str) -> bool:
    fields = tuple(field.strip().lower() for field in line.split("\t"))
    return fields in _QUERIES_HEADERS


def _parse_tsv_query(name: str, number: int, line: str) -> tuple[str, str]:
    fields = line.split("\t")
    if len(fields) != 2:
        raise InputFormatError(name, number, f"expected 2 tab-separated columns (id, text), found {len(fields)}")
    qid = fields[0].strip()
    if not qid:
        raise InputFormatError(name, number, "empty query id")
    return qid, fields[1].strip()


def _parse_json_query(name: str, number: int, line: str) -> tuple[str, str]:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise InputFormatError(name, number, f"invalid JSON: {exc}") from exc
    if not isinstance(record, dict):
        raise InputFormatError(name, number, "expected a JSON object with '_id' and 'text'")
    qid, text = record.get("_id"), record.get("text")
    if qid is None or text is None:
        missing = " and ".join(key for key in ("_id", "text") if record.get(key) is None)
        raise InputFormatError(name, number, f"missing {missing}")
    if isinstance(qid, bool) or not isinstance(qid, (str, int)):
        raise InputFormatError(name, number, f"'_id' must be a string, got {type(qid).__name__}")
    if not isinstance(text, str):
        raise InputFormatError(name, number, f"'text' must be a string, got {type(text).__name__}")
    if not str(qid).strip():
        raise InputFormatError(name, number, "empty query id")
    return str(qid).strip(), text.strip()
