"""config.Settings is the one place for every default: each CLI option named after a setting leaves
its default to Settings (None until merged: defaults < ragchain.toml < env < flags), and its help
shows the value Settings holds. An option that is not a setting says why here."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest
import typer

from ragchain_cli.cli.app import app
from ragchain_cli.cli.common import default
from ragchain_cli.config import ASK_FIELDS, DEFAULTS, INTERNAL, Settings, load_settings

# Options that are not settings: per-run inputs, outputs and switches, with what they are.
NOT_SETTINGS = {
    "as_json": "output format: follows whether stdout is a TTY",
    "config": "which settings files to read",
    "since": "a filter of one search", "until": "a filter of one search", "source": "a filter of one search",
    "recency": "a filter of one search (its weight is a setting)",
    "documents": "one search's result shape",
    "no_generate": "one ask's switch: retrieval only",
    "pdf_password": "a secret, never a default", "nougat_model": "a folder on this machine (env RAGCHAIN_NOUGAT_MODEL)",
    "wait": "one ingest's switch",
    "shards": "the index's layout, fixed when it is first built and recorded in its manifest (shards.json)",
    "queries": "an input file", "run": "input files", "run_out": "an output file", "plot": "an output file",
    "qa": "an input file", "predictions": "input files", "per_query": "output detail", "tune": "an action",
    "tune_out": "an output file", "metrics": "what eval reports (DEFAULT_METRICS, once)",
    "permutations": "the randomisation test's sample count", "version": "an action",
}
EMPTY = ("", {}, None)  # a setting whose default is "nothing" need not print it
DEFAULT_IN_HELP = re.compile(r"\[default ([^\]]+)\]")


def _options():
    group = typer.main.get_command(app)
    for name, command in sorted(group.commands.items()):
        for param in command.params:
            if param.param_type_name == "option":
                yield name, param


SETTING_NAMES = {f.name for f in fields(Settings)} - INTERNAL


def test_every_cli_option_is_a_setting_or_says_why_not():
    unexplained = [f"{command} --{p.name}" for command, p in _options()
                   if p.name not in SETTING_NAMES and p.name not in NOT_SETTINGS]
    assert not unexplained, f"options neither in Settings nor in NOT_SETTINGS: {unexplained}"


def test_every_setting_option_takes_its_default_from_settings():
    checked = 0
    for command, param in _options():
        if param.name not in SETTING_NAMES:
            continue
        checked += 1
        where = f"{command} {param.opts[0]}"
        assert param.default is None, f"{where} has its own default {param.default!r}; leave it to Settings"
        shown = DEFAULT_IN_HELP.findall(param.help or "")
        if getattr(DEFAULTS, param.name) not in EMPTY and param.name != "workers":  # workers: "one per CPU/GPU"
            assert default(param.name) in (param.help or ""), f"{where}'s help does not show {default(param.name)}"
        assert all(f"[default {value}]" == default(param.name) for value in shown), (where, shown)
    assert checked > 40  # every command's options were walked


def test_help_shows_the_ask_defaults_from_settings(cli):
    result = cli("ask", "--help")
    assert result.code == 0
    text = " ".join(result.out.split())
    for name in ("max_tokens", "context_tokens", "passages", "focus_tokens", "n_ctx"):
        assert default(name) in text, name
    assert "[default 0.3]" in " ".join(cli("search", "--help").out.split())  # recency weight, from Settings


def test_ask_defaults_come_from_settings_files_env_and_flags(tmp_path):
    (tmp_path / "ragchain.toml").write_text('max_tokens = 32\npassages = 2\n', encoding="utf-8")
    settings = load_settings({"context_tokens": 500}, config_files=[tmp_path / "ragchain.toml"],
                             environ={"RAGCHAIN_ABSTAIN": "false", "RAGCHAIN_FOCUS_TOKENS": "0"})
    assert settings.ask_fields() == {"max_tokens": 32, "context_tokens": 500, "passages": 2, "focus_tokens": 0,
                                     "abstain": False, "versions": "newest", "verdicts": DEFAULTS.verdicts,
                                     "judge_answers": DEFAULTS.judge_answers, "judge_supports": DEFAULTS.judge_supports,
                                     "claim_judge": DEFAULTS.claim_judge, "quote_closest": DEFAULTS.quote_closest,
                                     "near_yes_no": DEFAULTS.near_yes_no}
    assert set(Settings().ask_fields()) == set(ASK_FIELDS)


@pytest.mark.parametrize("flags, message", [({"max_tokens": 0}, "max-tokens must be at least 1"),
                                            ({"focus_tokens": -1}, "focus-tokens must be 0"),
                                            ({"abstain": "perhaps"}, "must be true or false")])
def test_bad_ask_settings_are_usage_errors(flags, message):
    from ragchain_cli.errors import UsageError

    with pytest.raises(UsageError, match=message):
        load_settings(flags, config_files=[], environ={})


def test_n_ctx_is_written_once():
    """Every local LLM's context window comes from Settings.n_ctx (config.DEFAULTS), never a literal."""
    root = Path(__file__).resolve().parent.parent / "ragchain_cli"
    literal = re.compile(r"n_ctx\s*(:\s*int\s*)?=\s*\d+")
    found = [f"{path.relative_to(root)}: {m.group(0)}" for path in sorted(root.rglob("*.py"))
             for m in literal.finditer(path.read_text(encoding="utf-8")) if path.name != "config.py"]
    assert not found, found


def test_the_answer_workflow_runs_the_settings_defaults():
    from dataclasses import asdict

    from ragchain_cli.answer.workflow import AskOptions

    options = asdict(AskOptions())
    assert {name: options[name] for name in ASK_FIELDS} == Settings().ask_fields()
    assert asdict(AskOptions(**Settings().ask_fields())) == options
