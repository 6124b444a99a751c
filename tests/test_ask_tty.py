"""`ragchain ask` on a real terminal (a pty): every outcome prints sentences for a person, the
refusal included, with the real SmolLM2 model through llama.cpp."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys

LLM = ("--llm", "smollm2-135m-instruct", "--max-tokens", "48")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def run_on_a_terminal(*args: str, timeout: float = 600) -> tuple[int, str]:
    """Run `ragchain ARGS` with stdin, stdout and stderr on a pseudo-terminal; its exit code and screen text."""
    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": "200", "TERM": "xterm"}
    process = subprocess.Popen([sys.executable, "-m", "ragchain_cli", *map(str, args)], stdin=follower,
                               stdout=follower, stderr=follower, env=env, close_fds=True)
    os.close(follower)
    screen = b""
    try:
        while select.select([leader], [], [], timeout)[0]:
            try:
                data = os.read(leader, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            screen += data
    finally:
        process.kill() if process.poll() is None else None
        code = process.wait()
        os.close(leader)
    return code, _ANSI.sub("", screen.decode("utf-8", "replace")).replace("\r\n", "\n")


def test_an_answer_is_shown_with_its_sources_and_progress(sample_index):
    code, screen = run_on_a_terminal("ask", "When is Heron Inlet closed to sampling?", "--index", sample_index, *LLM)
    assert code == 0, screen
    assert "reading " in screen and " passage" in screen  # progress while the prompt is read
    # the passage says "from 1 April to 15 July"; the 135M model's wording differs between machines
    if "Not verified:" in screen:  # a non-answer from the 135M model (its words vary between runs) is said to be one
        assert "Passages consulted" in screen and "Sources" not in screen, screen
    else:
        answer_line = next((line for line in screen.splitlines() if "April" in line or "July" in line), None)
        assert answer_line is not None and not answer_line.lower().startswith("according"), screen
        assert "Sources" in screen and "field-guide.pdf" in screen, screen
    assert "answering " in screen and "total" in screen
    assert not screen.lstrip().startswith("{")  # people get sentences, not JSON


def test_a_refusal_is_a_sentence_with_the_closest_passages(sample_index):
    code, screen = run_on_a_terminal("ask", "Who discovered penicillin?", "--index", sample_index, *LLM)
    assert code == 0, screen
    assert "The documents do not say" in screen
    assert "Closest, but not an answer" in screen and "sample_corpus/" in screen
    assert "--no-abstain answers from them anyway" in screen  # what to do if the reader disagrees
    assert "Sources" not in screen
    assert "reading " not in screen  # decided from the evidence before the model reads anything
    assert "answering " not in screen and "total" in screen  # the model never ran


def test_a_cited_older_version_is_marked_as_such(sample_index):
    code, screen = run_on_a_terminal("ask", "How many days per week can staff work from home?", "--index",
                                     sample_index, "--versions", "all", *LLM)
    assert code == 0, screen
    # the 2021 policy's "up to two days per week" is the top passage; whatever the small model makes
    # of it, the passage is listed, and marked as the older version of the 2025 revision
    listed = screen[screen.index("reading "):] if "reading " in screen else screen
    assert "remote-work-policy-2021.md" in listed
    assert "older version of sample_corpus/remote-work-policy-2025.md" in listed


def test_by_default_the_newest_version_answers_and_the_terminal_says_so(sample_index):
    code, screen = run_on_a_terminal("ask", "How many days per week can staff work from home?", "--index",
                                     sample_index, *LLM)
    assert code == 0, screen
    text = " ".join(screen.split())  # the terminal wraps long lines
    assert ("answered from the newest version, sample_corpus/remote-work-policy-2025.md; the older "
            "sample_corpus/remote-work-policy-2021.md also matched") in text
    assert "older version of" not in text  # the 2021 passage was not read
