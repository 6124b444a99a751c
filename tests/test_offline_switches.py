"""Importing ragchain changes nothing in the host process; the CLI entry and the library calls that
load a model set the offline switches themselves (ragchain_cli/offline.py)."""

from __future__ import annotations

import gc
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


def test_loading_a_model_leaves_the_offline_switches_to_the_host():
    """A library call loads from local files (local_files_only); the offline switches and BLAS threads
    are the CLI's choice for its own process, not a library's (test_reliability_offline checks that
    nothing reaches the network without them)."""
    result = _python(
        "import os\nfrom ragchain_cli.stores.embedders import load_embedder, load_query_encoder\n"
        "load_query_encoder()\nload_embedder().embed(['a test'])\n"
        "print(*(k in os.environ for k in ('HF_HUB_OFFLINE', 'TRANSFORMERS_OFFLINE', 'HF_DATASETS_OFFLINE', "
        "'OPENBLAS_NUM_THREADS')))\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False", "False", "False"]


def test_importing_the_cli_runs_nothing():
    result = _python(
        "import os, gc, sys\nbefore = dict(os.environ)\nimport ragchain_cli.cli, ragchain_cli.cli.app\n"
        "changed = sorted(k for k in set(before) | set(os.environ) if before.get(k) != os.environ.get(k))\n"
        "print('CHANGED=' + ','.join(changed), gc.get_freeze_count(), 'numpy' in sys.modules)\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["CHANGED=", "0", "False"]  # numpy not yet: OPENBLAS_NUM_THREADS still counts


def test_a_search_pipeline_leaves_the_garbage_collector_alone(sample_index):
    from ragchain_cli.retrieve.pipeline import SearchPipeline, search_options
    from ragchain_cli.stores.index import Index

    frozen = gc.get_freeze_count()
    with Index(sample_index) as index:
        SearchPipeline(index, search_options(retrievers="bm25".split(",")))
    assert gc.get_freeze_count() == frozen
