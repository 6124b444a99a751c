"""ServedLLM: a chat model that an OpenAI-compatible server runs (llama.cpp's server, Ollama, vLLM,
LM Studio), behind the same methods as LocalLLM, so the answer path never knows which drafted.

Only the URL the user names is contacted (`--llm http://127.0.0.1:8080/v1`), through the `openai`
client; nothing else is. An API key, if the server wants one, comes from $RAGCHAIN_LLM_API_KEY and is
sent only as the request's bearer token: never stored, printed or logged. No openai type leaves
this module, and every fault becomes one ragchain error naming the URL:
- nothing answers at the URL, or it does not serve the model named: ModelServerDown (a missing model);
- no answer within `llm_timeout` seconds, an HTTP error, a reply that is not JSON: ModelServerError.

Requests are made as the in-process model makes them: the same messages and stop strings, greedy at
temperature 0, `repeat_penalty` 1.0 (llama.cpp's servers would otherwise apply 1.1; other servers
ignore the field), and a JSON reply asked for as llama.cpp's `json_object` with the schema.
Token counts (for packing passages into the prompt) come from the server's tokenizer where it has
an endpoint for it (llama-cpp-python's /extras/tokenize/count, llama-server's and vLLM's /tokenize),
else from an estimate that errs on the long side (a token per 3 bytes).
UPR's log-probabilities of given text are not part of the chat API: score() refuses, naming that.
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any, Callable

from ..config import DEFAULTS
from ..errors import ModelServerDown, ModelServerError, UsageError

API_KEY_ENV = "RAGCHAIN_LLM_API_KEY"
TIMEOUT_SETTING = "llm_timeout (--llm-timeout, RAGCHAIN_LLM_TIMEOUT, or llm_timeout in ragchain.toml)"
START_HINT = ("start one, e.g. `python -m llama_cpp.server --model FILE.gguf --port 8080`, "
              "`llama-server -m FILE.gguf --port 8080` or `ollama serve`, or leave out --llm to use the local model")
BYTES_PER_TOKEN = 3  # the estimate where the server cannot count tokens: long rather than short
SAME_AS_LOCAL = {"repeat_penalty": 1.0}  # llama-cpp-python's create_chat_completion default, as in-process
_NOT_API = "check that the URL is the server's OpenAI-compatible API base (it usually ends in /v1)"


def is_url(text: str) -> bool:
    return text.strip().lower().startswith(("http://", "https://"))


class ServedLLM:
    """A model served over the OpenAI chat-completions API; `model` "" takes the server's only one."""

    def __init__(self, url: str, model: str = "", n_ctx: int = DEFAULTS.n_ctx,
                 timeout: float = DEFAULTS.llm_timeout) -> None:
        try:
            import openai
        except ImportError:  # a core dependency: only a broken install lacks it
            raise ModelServerError("--llm URL needs the openai package", "pip install openai") from None
        self.url, self.timeout, self._n_ctx = url.strip().rstrip("/"), float(timeout), int(n_ctx)
        self._openai = openai
        # the HTTP library the client runs on (httpx2, or httpx for older clients): a stream's own read
        # errors reach the caller unwrapped
        self._http = sys.modules.get("httpx2") or sys.modules.get("httpx")
        self._client = openai.OpenAI(base_url=self.url, api_key=os.environ.get(API_KEY_ENV) or "none",
                                     timeout=self.timeout, max_retries=0)
        self.model = self._call(lambda: self._chosen(model.strip()))
        self._counter: Callable[[str], int] | None = None
        self._counts: dict[str, int] = {}

    @property
    def n_ctx(self) -> int:
        return self._n_ctx

    def describe(self) -> dict:
        """What drafted, for the JSON: never the API key."""
        return {"backend": "served", "url": self.url, "model": self.model}

    def _chosen(self, wanted: str) -> str:
        names = [m.id for m in self._json(self._client.models.with_raw_response.list()).data]
        if wanted and wanted in names:
            return wanted
        if not wanted and len(names) == 1:
            return names[0]
        listed = ", ".join(names) or "none"
        if wanted:
            raise ModelServerDown(f"the model server at {self.url} does not serve {wanted!r}; it serves: {listed}",
                                  "pass one of those names with --llm-model (RAGCHAIN_LLM_MODEL)")
        raise ModelServerDown(f"the model server at {self.url} serves {len(names)} models ({listed}): "
                              "say which with --llm-model", "pass --llm-model NAME (RAGCHAIN_LLM_MODEL)")

    def _call(self, request: Callable[[], Any]) -> Any:
        """Run one request, turning the client's exceptions into ragchain errors that name the URL."""
        openai, http = self._openai, self._http
        try:
            return request()
        except (openai.APITimeoutError, http.TimeoutException):
            raise ModelServerError(f"the model server at {self.url} did not answer within {self.timeout:g} s",
                                   f"raise {TIMEOUT_SETTING}, or use a smaller model") from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise ModelServerDown(f"no model server answers at {self.url} ({type(cause).__name__}: {cause})",
                                  START_HINT) from None
        except http.TransportError as exc:  # the connection broke off while a reply streamed
            raise ModelServerError(f"the connection to the model server at {self.url} broke off "
                                   f"({type(exc).__name__}: {exc})", "see the server's own log for the cause") from None
        except openai.APIStatusError as exc:
            raise ModelServerError(f"the model server at {self.url} answered HTTP {exc.status_code}: "
                                   f"{_first_line(exc.response.text)}", _status_hint(exc.status_code)) from None
        except (openai.APIResponseValidationError, ValueError) as exc:
            raise ModelServerError(f"the model server at {self.url} sent a reply that is not the API's JSON: "
                                   f"{_first_line(str(exc))}", _NOT_API) from None

    def _json(self, raw: Any) -> Any:
        """A raw reply parsed, once its content type says JSON (the client would hand back an HTML page as text)."""
        response = raw.http_response
        if "json" not in response.headers.get("content-type", ""):
            raise ModelServerError(f"the model server at {self.url} sent a reply that is not the API's JSON: "
                                   f"{_first_line(response.text)}", _NOT_API)
        return raw.parse()

    def _event_stream(self, response: Any) -> None:
        """A streamed reply must be server-sent events; anything else (an HTML page) is reported, not read as empty."""
        kind = response.headers.get("content-type", "")
        if "text/event-stream" not in kind:
            raise ModelServerError(f"the model server at {self.url} sent {kind or 'no content type'} where a stream "
                                   f"of events was asked for: {_first_line(response.read().decode('utf-8', 'replace'))}",
                                   _NOT_API)

    def chat(self, messages: list[dict], max_tokens: int, temperature: float = 0.0,
             stop: list[str] | None = None, on_token: Callable[[str], None] | None = None) -> str:
        """The reply, streamed piece by piece to `on_token`; stopping early (an exception from
        on_token) closes the stream, which tells the server to stop generating."""
        def run() -> str:
            pieces: list[str] = []
            with self._client.chat.completions.create(
                    model=self.model, messages=messages, max_tokens=max_tokens, temperature=temperature,
                    stop=stop or None, stream=True, extra_body=SAME_AS_LOCAL) as stream:
                self._event_stream(stream.response)
                for chunk in stream:
                    piece = (chunk.choices[0].delta.content or "") if chunk.choices else ""
                    if piece:
                        pieces.append(piece)
                        if on_token is not None:
                            on_token(piece)
            return "".join(pieces)

        return self._call(run)

    def chat_json(self, messages: list[dict], schema: dict, max_tokens: int) -> dict:
        """A reply the server constrains to `schema` where it can (llama.cpp does), parsed into a dict."""
        from .llama import json_reply

        reply = self._call(lambda: self._json(self._client.chat.completions.with_raw_response.create(
            model=self.model, messages=messages, max_tokens=max_tokens, temperature=0.0,
            response_format={"type": "json_object", "schema": schema}, extra_body=SAME_AS_LOCAL)))
        return json_reply(reply.choices[0].message.content or "", schema)

    def count_tokens(self, text: str) -> int:
        if text not in self._counts:
            if self._counter is None:
                self._counter = self._find_counter()
            counter = self._counter
            self._counts[text] = self._call(lambda: counter(text))  # a timeout here is the server's, named as such
        return self._counts[text]

    def _find_counter(self) -> Callable[[str], int]:
        """The first of the server's tokenizer endpoints that answers, less what it adds to an empty text
        (a BOS token); else the estimate."""
        for probe in (self._count_extras, self._count_tokenize):
            try:
                empty = probe("")
            except Exception:  # noqa: BLE001 - a server without this endpoint: try the next
                continue
            return lambda text, probe=probe, empty=empty: max(0, probe(text) - empty)
        return lambda text: math.ceil(len(text.encode("utf-8")) / BYTES_PER_TOKEN)

    def _root(self) -> str:
        return self.url[:-3] if self.url.endswith("/v1") else self.url

    def _post(self, path: str, body: dict) -> dict:
        """A POST to the server's root (its tokenizer endpoints are outside /v1), with the same client."""
        reply = self._client.with_options(base_url=self._root()).post(path, body=body, cast_to=object)
        if not isinstance(reply, dict):
            raise ValueError(f"{path} did not answer with a JSON object")
        return reply

    def _count_extras(self, text: str) -> int:  # llama-cpp-python's server
        return int(self._post("/extras/tokenize/count", {"input": text, "model": self.model})["count"])

    def _count_tokenize(self, text: str) -> int:  # llama-server ("content") and vLLM ("prompt")
        reply = self._post("/tokenize", {"content": text, "prompt": text, "model": self.model,
                                         "add_special": False, "add_special_tokens": False})
        return int(reply["count"]) if "count" in reply else len(reply["tokens"])

    def score(self, *args: Any, **kwargs: Any) -> list[float]:
        raise no_logprobs(self.url)


def no_logprobs(url: str) -> UsageError:
    """UPR scores given text by its log-probabilities: no chat-completions API gives those."""
    return UsageError(f"the upr reranker needs the log-probabilities of given text, which the chat API of the "
                      f"model server at {url} does not give",
                      "use --rerank llm (listwise) with the server, or upr with a local model (--llm NAME|GGUF)")


def _first_line(text: str) -> str:
    line = next((part.strip() for part in (text or "").splitlines() if part.strip()), "(empty body)")
    return line if len(line) <= 200 else line[:197] + "..."


def _status_hint(status: int) -> str:
    if status in (401, 403):
        return f"the server wants an API key: set {API_KEY_ENV}"
    if status == 404:
        return _NOT_API
    return "see the server's own log for the cause"
