"""Importing ragchain changes nothing in the host process; the CLI entry and the library calls that
load a model set the offline switches themselves (ragchain_cli/offline.py)."""

from __future__ import annotations

import os
import subprocess
import sys

SWITCHES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE", "TOKENIZERS_PARALLELISM",
            "OPENBLAS_NUM_THREADS", "HF_HUB_DISABLE_PROGRESS_BARS", "TRANSFORMERS_VERBOSITY")


def _python(code: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in SWITCHES}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_importing_the_library_leaves_the_environment_unchanged():
    result = _python(
        "import os\nbefore = dict(os.environ)\n"
        "import ragchain_cli, ragchain_cli.config, ragchain_cli.retrieve.pipeline, ragchain_cli.ingest.pipeline\n"
        "import ragchain_cli.evaluation.workflow, ragchain_cli.stores.embedders, ragchain_cli.rerank\n"
        "changed = sorted(k for k in set(before) | set(os.environ) if before.get(k) != os.environ.get(k))\n"
        "print('CHANGED=' + ','.join(changed))\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "CHANGED="


def test_loading_a_model_sets_the_hub_offline_switches():
    result = _python(
        "import os\nfrom ragchain_cli.stores.embedders import load_query_encoder\n"
        "assert 'HF_HUB_OFFLINE' not in os.environ\nload_query_encoder()\n"
        "print(os.environ['HF_HUB_OFFLINE'], os.environ['TRANSFORMERS_OFFLINE'], 'OPENBLAS_NUM_THREADS' in os.environ)\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1", "1", "False"]  # BLAS threads are the CLI's choice, not a library's
