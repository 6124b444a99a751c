"""ragchain: offline-first retrieval-augmented generation for local document collections.

Importing the package does no work beyond pinning the offline switches: nothing here
may reach the network, so the Hugging Face libraries are told so before any of them loads.
"""

import os as _os

__version__ = "0.1.0"

for _var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
    _os.environ[_var] = "1"  # forced, not a default: ragchain never downloads, whatever the shell says
_os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# numpy's OpenBLAS only runs small products here (query encoding, fusion); with 2 threads they
# spin against Tantivy's and LanceDB's threads: a hybrid query took 2 s instead of 24-40 ms on
# a busy 2-core machine (bench/RESULTS.md, threads). Batch embedding uses torch's own threads.
_os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
_os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
_os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
