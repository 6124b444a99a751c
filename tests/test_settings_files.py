"""Where settings files come from: a library caller names its own (load_settings reads none
otherwise, whatever the working folder holds); the CLI and bench/ read ./ragchain.toml when no
--config is given (config.command_config_files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragchain_cli.config import DEFAULTS, command_config_files, load_settings
from ragchain_cli.errors import UsageError
from ragchain_cli.evaluation import ConfigGrid

DISTINCT = "index-named-by-the-toml"


@pytest.fixture
def local_toml(tmp_path) -> Path:
    """A ragchain.toml in the working folder (conftest runs each test in tmp_path)."""
    path = tmp_path / "ragchain.toml"
    path.write_text(f'index = "{DISTINCT}"\n', encoding="utf-8")
    return path


def test_load_settings_reads_no_file_of_the_working_folder(local_toml):
    assert load_settings(environ={}).index == DEFAULTS.index


def test_load_settings_reads_the_files_it_is_given(local_toml):
    assert load_settings(config_files=[local_toml], environ={}).index == DISTINCT


def test_a_settings_file_given_but_missing_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="config file not found"):
        load_settings(config_files=[tmp_path / "absent.toml"], environ={})


def test_the_cli_reads_ragchain_toml_of_the_working_folder(local_toml, cli):
    result = cli("status", "--json")
    assert result.code != 0 and f"no index at {DISTINCT}" in result.err


def test_a_command_reads_ragchain_toml_when_no_config_is_given(local_toml):
    assert command_config_files() == [Path("ragchain.toml")]


def test_a_command_reads_only_the_config_it_is_given(local_toml, tmp_path):
    assert command_config_files([tmp_path / "other.toml"]) == [tmp_path / "other.toml"]


def test_a_command_reads_no_file_where_there_is_no_ragchain_toml():
    assert command_config_files() == []


def test_a_library_eval_grid_reads_no_file_of_the_working_folder(local_toml):
    [(_, settings)] = ConfigGrid(retrievers=["bm25"]).settings()
    assert settings.index == DEFAULTS.index


def test_an_eval_grid_reads_the_grid_files_it_is_given(local_toml):
    [(_, settings)] = ConfigGrid(retrievers=["bm25"], grid_files=[local_toml]).settings()
    assert settings.index == DISTINCT
