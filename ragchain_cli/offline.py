"""The process switches ragchain relies on, set where they are needed instead of on import.

- hub_offline(): the Hugging Face libraries never reach the network (forced, whatever the shell
  says: ragchain never downloads) and stay quiet. Every library call that loads a model or a
  tokenizer calls it first; huggingface_hub reads HF_HUB_OFFLINE when it is first imported.
- cli_process(): the above, and numpy's OpenBLAS on one thread. OpenBLAS only runs small
  products here (query encoding, fusion); with 2 threads they spin against Tantivy's and
  LanceDB's threads: a hybrid query took 2 s instead of 24-40 ms on a busy 2-core machine
  (bench/RESULTS.md, threads). Batch embedding uses torch's own threads. It takes effect only
  before numpy is first imported, so the CLI (cli/__init__.py) and bench/ call it at start.
Importing ragchain_cli sets nothing, so a host process keeps its own environment.
"""

from __future__ import annotations

import os

OFFLINE = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")
QUIET = {"TOKENIZERS_PARALLELISM": "false", "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TRANSFORMERS_VERBOSITY": "error"}


def hub_offline() -> None:
    for name in OFFLINE:
        os.environ[name] = "1"
    for name, value in QUIET.items():
        os.environ.setdefault(name, value)


def cli_process() -> None:
    hub_offline()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
