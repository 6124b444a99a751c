"""Re-apply the current support check to saved `ask --json` payloads: the answers stay as they
were generated (greedy, deterministic); only whether their key content is in the passages they
show ("supported") is recomputed.

    python bench/qa_recheck.py INDEX PREDICTIONS.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(index: str, predictions: str) -> None:
    from ragchain_cli.generate.support import check_support
    from ragchain_cli.text.words import TermStats
    from ragchain_cli.stores.index import Index

    store = Index(Path(index))
    stats = TermStats(total=store.lexical.count(), doc_freq=store.lexical.doc_freqs)
    rows = [json.loads(line) for line in Path(predictions).read_text().splitlines() if line.strip()]
    answered = [r for r in rows if r.get("answered")]
    as_run = sum(bool(r["supported"]) for r in answered)
    now = sum(check_support(r["answer"], r["question"], [h["text"] for h in r["hits"]], stats).supported
              for r in answered)
    print(f"answered {len(answered)}: supported as run {as_run}, with the current check {now}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
