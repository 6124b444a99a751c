"""Offline guarantee: ingest, search and ask (with the bundled small model, which must be installed:
its absence fails the test) work with every outgoing connection refused, and the tool sets the Hugging Face offline switches
itself. Two guards: a socket guard inside the Python process (any connect or DNS lookup is
refused and logged), and `unshare -n` (a network namespace with no network at all, which also
covers native code: Rust, C++)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

REFUSE_NETWORK = """
import socket, sys
def refuse(*args, **kwargs):
    sys.stderr.write(f"NETWORK ATTEMPT {args!r}\\n")
    raise OSError(101, "network is unreachable (refused by the offline test)")
socket.socket.connect = lambda self, *a: refuse(*a)
socket.socket.connect_ex = lambda self, *a: refuse(*a)
socket.create_connection = refuse
socket.getaddrinfo = refuse
"""
GUARD = REFUSE_NETWORK + """
from ragchain_cli.cli.app import run
sys.exit(run(sys.argv[1:]))
"""

OFFLINE_SWITCHES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
OFFLINE_CORPUS = ("field-guide.pdf", "it-faq.txt", "buoy-maintenance.md", "lake-glossary.html")


def _env() -> dict[str, str]:
    """The test's environment without the offline switches: the tool must set them itself."""
    return {k: v for k, v in os.environ.items() if k not in OFFLINE_SWITCHES + ("HF_DATASETS_OFFLINE",)}


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


GUARDS = {
    "socket-guard": lambda args: [sys.executable, "-c", GUARD, *args],
    "unshare-n": lambda args: ["unshare", "-n", sys.executable, "-m", "ragchain_cli", *args],
}


@pytest.mark.parametrize("guard", sorted(GUARDS))
def test_ingest_search_and_ask_with_no_network(tmp_path, guard):
    if guard == "unshare-n" and not _unshare_works():
        pytest.skip("unshare -n is not permitted here (needs CAP_SYS_ADMIN or user namespaces)")
    corpus = tmp_path / "sample_corpus"
    corpus.mkdir()
    for name in OFFLINE_CORPUS:  # a few files keep it quick; one of each loader family
        shutil.copy2(ROOT / "sample_corpus" / name, corpus / name)
    index = str(tmp_path / "index")

    def ragchain(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        result = subprocess.run(GUARDS[guard]([*args, "--index", index]), capture_output=True, text=True,
                                input=stdin, timeout=600, env=_env())
        assert "NETWORK ATTEMPT" not in result.stderr, result.stderr
        return result

    ingest = ragchain("ingest", str(corpus), "--json")
    assert ingest.returncode == 0, ingest.stderr
    assert json.loads(ingest.stdout)["chunks_added"] > 5
    search = ragchain("search", "When is Heron Inlet closed to sampling?", "--json")
    assert search.returncode == 0, search.stderr
    hits = json.loads(search.stdout)["hits"]
    assert hits and set(hits[0]["explain"]) == {"bm25", "dense"}
    assert ragchain("check").returncode == 0

    if guard == "socket-guard" and _unshare_works():
        return  # ask runs once, under the stronger guard (no network at all), to keep the suite quick
    ask = ragchain("ask", "When is Heron Inlet closed to sampling?", "--llm", "smollm2-135m-instruct",
                   "--max-tokens", "16", "--context-tokens", "400", "--json")
    assert ask.returncode == 0, ask.stderr  # 6 (a bundled model missing) is a failure, not a skip
    payload = json.loads(ask.stdout)
    assert payload["answer"] and payload["hits"]


def test_the_tool_sets_the_offline_switches_itself():
    show = "print(' '.join(os.environ.get(k, '-') for k in ('HF_HUB_OFFLINE', 'TRANSFORMERS_OFFLINE')))\n"
    code = ("import os, sys\nimport ragchain_cli.cli, ragchain_cli.cli.app\n" + show +  # importing sets nothing
            "sys.argv = ['ragchain', '--version']\ntry:\n    ragchain_cli.cli.app.main()\nexcept SystemExit:\n"
            "    pass\n" + show)  # the entry point does
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["-", "-"] and lines[-1].split() == ["1", "1"], result.stdout


def test_the_socket_guard_is_not_vacuous():
    code = REFUSE_NETWORK + "import urllib.request\ntry:\n    urllib.request.urlopen('http://127.0.0.1:9', timeout=2)\nexcept OSError:\n    pass\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "NETWORK ATTEMPT" in result.stderr
