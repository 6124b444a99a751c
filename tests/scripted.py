"""A scripted stand-in for the answer model: it replies with fixed texts, in order, and records what
it was asked. It drives the real answer path (real index, real search, real checks) so a test can
assert one outcome; the real llama.cpp models have their own tests."""

from __future__ import annotations


class ScriptedModel:
    n_ctx = 4096

    def __init__(self, *replies: str) -> None:
        self.replies, self.calls = list(replies), []

    def count_tokens(self, text: str) -> int:
        return len(text.split()) + text.count(".")

    def chat(self, messages, max_tokens, temperature=0.0, stop=None, on_token=None) -> str:
        self.calls.append(messages)
        reply = self.replies.pop(0) if self.replies else ""
        for piece in reply.split(" "):  # streamed word by word, as llama.cpp streams tokens
            if on_token is not None:
                on_token(piece + " ")
        return reply

    def asked(self, n: int) -> str:
        """The user turn of the n-th call (0-based)."""
        return self.calls[n][-1]["content"]
