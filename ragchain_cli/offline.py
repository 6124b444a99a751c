"""The process switches ragchain relies on, set where they are needed instead of on import.

- quiet_hub(): the Hugging Face libraries stay quiet (no progress bars, no tokenizer threads a
  fork would copy), unless the host process says otherwise. Every library call that loads a
  model or a tokenizer calls it first. It never touches HF_*_OFFLINE: a library caller's process
  keeps its own choice. Models load from local folders with local_files_only, so nothing
  downloads either way.
- freeze_loaded(): what is loaded by now (modules, models, index readers) taken out of the cyclic
  collector's scans. A query makes thousands of short-lived hits whose collections otherwise walk
  all of it again (bench/RESULTS.md, issue 14: fusion time halved, p95 outliers gone). Only a
  process that owns itself may do this: the CLI, once a command has loaded, and bench/.
- cli_process(): the CLI entry's (cli/app.main) and bench/'s switches: the Hugging Face
  libraries forced offline (whatever the shell says: ragchain never downloads), quiet, and numpy's
  OpenBLAS on one thread. OpenBLAS only runs small products here (query encoding, fusion); with
  2 threads they spin against Tantivy's and LanceDB's threads: a hybrid query took 2 s instead of
  24-40 ms on a busy 2-core machine (bench/RESULTS.md, threads). Batch embedding uses torch's own
  threads. It takes effect only before numpy is first imported, which importing the CLI does not do.
Importing ragchain_cli (or ragchain_cli.cli) sets nothing, so a host process keeps its own environment.
"""

from __future__ import annotations

import gc
import os

OFFLINE = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")
QUIET = {"TOKENIZERS_PARALLELISM": "false", "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TRANSFORMERS_VERBOSITY": "error"}


def quiet_hub() -> None:
    for name, value in QUIET.items():
        os.environ.setdefault(name, value)


def freeze_loaded() -> None:
    """Once a process: a later freeze would also keep whatever garbage had built up since."""
    if not gc.get_freeze_count():
        gc.freeze()


def cli_process() -> None:
    for name in OFFLINE:
        os.environ[name] = "1"
    quiet_hub()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
