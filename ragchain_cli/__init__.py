"""ragchain: offline-first retrieval-augmented generation for local document collections.

Importing the package does no work beyond pinning the offline switches: nothing here
may reach the network, so the Hugging Face libraries are told so before any of them loads.
"""

import os as _os

__version__ = "0.1.0"

for _var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
    _os.environ.setdefault(_var, "1")
_os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
_os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
_os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
