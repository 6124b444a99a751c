"""`--llm URL`: drafting through an OpenAI-compatible server. The server is llama.cpp's own
(llama-cpp-python's `llama_cpp.server`, the `server` extra the dev install adds) on 127.0.0.1 with the
bundled SmolLM2 GGUF; no mock stands in for it. One stdlib HTTP server on 127.0.0.1 plays a
misconfigured URL (an HTML page where the API should be), a fault llama.cpp's server never shows."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from ragchain_cli.llm.models import resolve_model

MODEL = "smollm2-135m-instruct"
ALIAS = "smollm2-135m"
QUESTIONS = ("When is Heron Inlet closed to sampling?", "What does logger error E-417 mean?",
             "Is Heron Inlet closed to sampling in May?")  # each one the judge finds answered: the model drafts
MISSING = [name for name in ("fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings")
           if importlib.util.find_spec(name) is None]
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"llama_cpp.server needs {', '.join(MISSING)} "
                                "(the server extra: pip install 'llama-cpp-python[server]', which ./install.sh --dev adds)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """llama_cpp.server in a child process; `log` collects its access log (one line a request)."""

    def __init__(self, log: Path) -> None:
        self.port, self.log = free_port(), log
        self.url = f"http://127.0.0.1:{self.port}/v1"
        command = [sys.executable, "-m", "llama_cpp.server", "--model", str(resolve_model(MODEL)), "--model_alias",
                   ALIAS, "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", "4096", "--logits_all", "false"]
        self.process = subprocess.Popen(command, stdout=open(log, "wb"), stderr=subprocess.STDOUT)
        self._wait()

    def _wait(self, seconds: float = 120.0) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {self.log.read_text(errors='replace')[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    if "Uvicorn running" in self.log.read_text(errors="replace"):
                        return
            except OSError:
                pass
            time.sleep(0.3)
        raise RuntimeError("llama_cpp.server did not start within 2 minutes")

    def requests(self, path: str) -> int:
        return self.log.read_text(errors="replace").count(f"POST {path} ")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def server(tmp_path_factory, cache_dir):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAGCHAIN_CACHE", str(cache_dir))  # the GGUF file the in-process tests load
        running = Server(tmp_path_factory.mktemp("server") / "server.log")
    yield running
    running.stop()


def ask(cli, index, question: str, *llm: str):
    result = cli("ask", question, "--index", index, "--max-tokens", "48", "--json", *llm)
    assert result.code == 0, result.err
    return result.json()


def test_served_and_in_process_answers_agree_at_temperature_0(sample_index, cli, server):
    for question in QUESTIONS:
        local = ask(cli, sample_index, question, "--llm", MODEL)
        served = ask(cli, sample_index, question, "--llm", server.url)
        assert local["llm"]["backend"] == "local" and served["llm"]["backend"] == "served", question
        kept = ("answer", "answered", "supported", "citations", "draft")
        assert {k: served.get(k) for k in kept} == {k: local.get(k) for k in kept}, question


def test_the_json_names_the_server_and_model_that_drafted(sample_index, cli, server):
    payload = ask(cli, sample_index, QUESTIONS[0], "--llm", server.url)
    assert payload["llm"] == {"backend": "served", "url": server.url, "model": ALIAS}


def test_the_api_key_is_sent_but_never_shown(sample_index, cli, server, monkeypatch):
    monkeypatch.setenv("RAGCHAIN_LLM_API_KEY", "sk-test-never-shown-4711")
    result = cli("ask", QUESTIONS[0], "--index", sample_index, "--llm", server.url, "--json")
    assert result.code == 0 and "sk-test-never-shown-4711" not in result.out + result.err


def test_hyde_drafts_through_the_server(sample_index, cli, server):
    before = server.requests("/v1/chat/completions")
    result = cli("search", "heron inlet closure", "--index", sample_index, "--retrievers", "hyde", "--llm", server.url,
                 "--json")
    assert result.code == 0, result.err
    assert result.json()["hits"] and server.requests("/v1/chat/completions") == before + 1


def test_listwise_reranking_ranks_through_the_server(sample_index, cli, server):
    before = server.requests("/v1/chat/completions")
    result = cli("search", "heron inlet closure", "--index", sample_index, "--rerank", "llm", "--rerank-depth", "5",
                 "--llm", server.url, "--json")
    assert result.code == 0, result.err
    assert server.requests("/v1/chat/completions") > before
    assert all("rerank" in hit["explain"] for hit in result.json()["hits"][:5])


def test_upr_is_refused_naming_the_log_probabilities_a_server_lacks(sample_index, cli, server):
    result = cli("search", "heron inlet", "--index", sample_index, "--rerank", "upr", "--llm", server.url)
    assert result.code == 2 and "log-probabilities" in result.err


def test_a_wrong_model_name_lists_the_served_ones(sample_index, cli, server):
    result = cli("ask", QUESTIONS[0], "--index", sample_index, "--llm", server.url, "--llm-model", "gpt-9")
    assert result.code == 6 and f"it serves: {ALIAS}" in result.err, result.err


def test_a_timeout_names_the_setting(sample_index, cli, server):
    result = cli("ask", QUESTIONS[0], "--index", sample_index, "--llm", server.url, "--llm-timeout", "0.001")
    assert result.code == 7 and "did not answer within 0.001 s" in result.err and "--llm-timeout" in result.err


def test_a_stopped_server_is_named_with_how_to_start_one(sample_index, cli):
    url = f"http://127.0.0.1:{free_port()}/v1"
    result = cli("ask", QUESTIONS[0], "--index", sample_index, "--llm", url)
    assert result.code == 6 and f"no model server answers at {url}" in result.err and "llama_cpp.server" in result.err


def test_a_batch_writes_each_failed_question_s_error_line_and_goes_on(sample_index, cli, monkeypatch):
    url = f"http://127.0.0.1:{free_port()}/v1"
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(f"{QUESTIONS[0]}\n{QUESTIONS[1]}\n"))
    result = cli("ask", "-", "--index", sample_index, "--llm", url)
    lines = result.jsonl()
    assert result.code == 6 and [line["question"] for line in lines] == list(QUESTIONS[:2])
    assert all(f"no model server answers at {url}" in line["error"]["message"] for line in lines)


class HtmlPage(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - the stdlib's name
        body = b"<html><body>Welcome to nginx!</body></html>\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_reply_that_is_not_the_api_s_json_gives_its_first_line(sample_index, cli):
    page = HTTPServer(("127.0.0.1", 0), HtmlPage)
    threading.Thread(target=page.serve_forever, daemon=True).start()
    try:
        result = cli("ask", QUESTIONS[0], "--index", sample_index, "--llm", f"http://127.0.0.1:{page.server_port}")
    finally:
        page.shutdown()
    assert result.code == 7 and "<html><body>Welcome to nginx!</body></html>" in result.err, result.err
    assert "/v1" in result.err  # the hint: the API base usually ends in /v1
