"""Mistakes on the command line and in ragchain.toml are usage errors (exit 2, a message, no
traceback); a reader that stops early (`| head -1`) is not an error."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


@pytest.mark.parametrize("args, says", [
    (("search", "x", "--bogus-flag"), "No such option"),
    (("nosuchcmd",), "No such command"),
    (("ingest",), "Missing argument"),
    (("search", "x", "-k", "abc"), "Invalid value"),
    (("eval", "qrels.tsv", "--fusion"), "requires an argument"),
])
def test_command_line_mistakes_are_usage_errors(cli, args, says):
    result = cli(*args)
    assert result.code == 2 and says in result.err and "Traceback" not in result.err


@pytest.mark.parametrize("flag", [("-k", "0"), ("-k", "-1"), ("--depth", "0"), ("--rerank-depth", "-5")])
def test_counts_below_one_are_refused(cli, sample_index, flag):
    result = cli("search", "ferry", "--index", sample_index, "--retrievers", "bm25", *flag)
    assert result.code == 2 and "must be at least 1" in result.err


@pytest.mark.parametrize("toml, code, says", [
    ('weights = {bm25 = "a", dense = 0.5}', 2, "must map retriever names to numbers"),
    ("retrievers = 5", 2, "'retrievers' must be text"),
    ("k = 2.5", 2, "'k' must be a whole number"),
    ('retrievers = ["bm25"]', 0, ""),
])
def test_config_values_of_the_wrong_type_are_usage_errors(cli, sample_index, tmp_path, monkeypatch, toml, code, says):
    (tmp_path / "ragchain.toml").write_text(toml + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = cli("search", "ferry timetable", "--index", sample_index, "--json")
    assert result.code == code and says in result.err, result.err
    if code == 0:
        assert set(result.json()["hits"][0]["explain"]) == {"bm25"}


def test_a_reader_that_stops_early_is_not_an_error(sample_index):
    proc = subprocess.Popen([sys.executable, "-m", "ragchain_cli", "search", "-", "--index", str(sample_index),
                             "--retrievers", "bm25", "-k", "20"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(("ferry timetable\n" * 3000).encode())
    proc.stdin.close()
    json.loads(proc.stdout.readline())
    proc.stdout.close()  # as `| head -1` does
    assert proc.wait(timeout=120) == 0, proc.stderr.read().decode()


def test_ask_questions_on_stdin_write_their_jsonl_to_stdout_while_a_terminal_shows_progress(sample_index, tmp_path):
    import os
    import pty

    # `ragchain ask - < q.txt > answers.jsonl` typed at a terminal: stderr is the terminal (the
    # spinner), stdout a file; the answers must land in the file, not on the screen
    leader, follower = pty.openpty()
    answers = tmp_path / "answers.jsonl"
    with answers.open("wb") as out:
        proc = subprocess.run([sys.executable, "-m", "ragchain_cli", "ask", "-", "--no-generate", "--index",
                               str(sample_index)], input=b"heron inlet closure\nferry timetable\n", stdout=out,
                              stderr=follower, timeout=300, env={**os.environ, "TERM": "xterm"})
    os.close(follower)
    os.close(leader)
    rows = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    assert proc.returncode == 0
    assert [row["question"] for row in rows] == ["heron inlet closure", "ferry timetable"]


def test_exit_codes_come_from_one_table_of_error_classes():
    from ragchain_cli import errors
    from ragchain_cli.cli.output import ERROR_EXIT_CODES, EXIT_CODES, exit_code

    assert not any("exit_code" in vars(cls) for cls in vars(errors).values() if isinstance(cls, type))
    assert {code for _, code in ERROR_EXIT_CODES} <= set(EXIT_CODES)
    assert exit_code(errors.IndexBusy("x")) == 5 and exit_code(errors.InputFormatError("f", 3, "bad")) == 2
    assert exit_code(errors.LoaderError("x")) == 1 and exit_code(errors.DependencyMissing("x")) == 6


def test_version_prints_the_installed_version(cli):
    from importlib.metadata import version

    result = cli("--version")
    assert result.code == 0 and result.out.strip() == f"ragchain {version('ragchain-cli')}"


def test_a_ctrl_c_inside_a_string_exec_still_exits_130_under_python_m(tmp_path):
    import signal

    # a real SIGINT, raised while exec() runs a string (as dataclasses do while a library is imported):
    # CPython marks it unhandled, and under `python -m` would kill the process with SIGINT (-2) at exit
    (tmp_path / "interrupted_cli.py").write_text(
        "from ragchain_cli.cli import app\n"
        "def command(**_):\n"
        "    exec('import os, signal\\nos.kill(os.getpid(), signal.SIGINT)\\nfor _ in range(10**8): pass')\n"
        "app.app = command\n"
        "app.main()\n")
    done = subprocess.run([sys.executable, "-m", "interrupted_cli"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert done.returncode == 130, done.stderr
    assert "interrupted" in done.stderr and "Traceback" not in done.stderr


def test_an_error_raised_in_place_of_a_ctrl_c_is_reported_as_an_interrupt(monkeypatch, capsys):
    from ragchain_cli.cli import app

    def command(**_):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:  # as a lazy import does: the interrupt becomes an import error
            raise ModuleNotFoundError("Could not import module 'PreTrainedModel'") from exc

    monkeypatch.setattr(app, "app", command)
    assert app.run([]) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "Traceback" not in err and "bug" not in err
