"""The two FIXED halves of a query set, for choosing settings on one and confirming on the other.

    python bench/halves.py --qrels ../shared/data/scifact/qrels-train.tsv --out DIR

Rule (no list to keep in sync, no data-dependent choice): a query belongs to half 1 when the
blake2b-64 hash of its ID is even, to half 2 when it is odd. On SciFact's 809 train queries that
gives 399 (half 1) and 410 (half 2). `--out` writes `half1.tsv` and `half2.tsv`, BEIR-style qrels
with a header, which `ragchain eval` reads like the original.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path


def half(qid: str) -> int:
    """1 or 2: which fixed half the query ID falls in."""
    digest = hashlib.blake2b(qid.encode("utf-8"), digest_size=8).digest()
    return 1 + int.from_bytes(digest, "big") % 2


def split(qrels: dict[str, dict[str, int]]) -> tuple[dict, dict]:
    """(half 1, half 2) of a {qid: {docid: grade}} mapping."""
    first = {q: j for q, j in qrels.items() if half(q) == 1}
    second = {q: j for q, j in qrels.items() if half(q) == 2}
    return first, second


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--qrels", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    lines = Path(args.qrels).read_text(encoding="utf-8").splitlines()
    header, rows = lines[0], [line for line in lines[1:] if line.strip()]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for number in (1, 2):
        kept = [row for row in rows if half(row.split("\t")[0]) == number]
        (out / f"half{number}.tsv").write_text("\n".join([header, *kept]) + "\n", encoding="utf-8")
        print(f"half {number}: {len({row.split(chr(9))[0] for row in kept})} queries -> {out / f'half{number}.tsv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
