"""ragchain.toml's component tables: checked against each component's own options (a wrong key or
type is a usage error naming the file), passed to the component, and listed by `ragchain models`."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragchain_cli.config import load_settings
from ragchain_cli.ingest.ocr import options_for
from ragchain_cli.ingest.pipeline import ingest_options
from ragchain_cli.retrieve.pipeline import SearchPipeline, search_options
from ragchain_cli.stores.index import Index


def _toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ragchain.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("table, says", [
    ('[rerank.llm]\nwindow = "twenty"\n', "window must be a whole number"),
    ("[retrieve.bm25-prf]\nprf_weight = true\n", "prf_weight must be a number"),
    ("[ocr]\nlanguage = 3\n", "language must be text"),
    ("[rerank.llm]\nwindw = 20\n", "unknown option(s) windw"),
    ("[rerank.nosuch]\nx = 1\n", "unknown reranker 'nosuch'"),
    ("[ocr]\nwindow = 20\n", "unknown option(s) window"),
])
def test_a_bad_table_is_a_usage_error_naming_the_file(cli, sample_index, tmp_path, table, says):
    path = _toml(tmp_path, table)
    result = cli("search", "ferry", "--index", sample_index, "--retrievers", "bm25")
    assert result.code == 2, result.err
    assert str(path.name) in result.err and says in result.err and "Traceback" not in result.err


def test_tables_reach_their_components(sample_index, tmp_path):
    path = _toml(tmp_path, 'retrievers = "bm25,bm25-prf"\n[retrieve.bm25-prf]\nprf_terms = 3\nprf_weight = 1\n'
                           '[rerank]\nuse = "bm25"\n[rerank.bm25]\nk1 = 2\n')
    settings = load_settings(config_files=[path])
    assert settings.rerank == "bm25"
    index = Index(sample_index)
    try:
        pipeline = SearchPipeline(index, search_options(settings))
        prf = pipeline.retrievers["bm25-prf"]
        assert (prf.terms, prf.original_weight, prf.docs) == (3, 1.0, 10)  # prf_docs keeps its default
        assert pipeline.reranker.k1 == 2.0 and isinstance(pipeline.reranker.k1, float)
    finally:
        index.close()


def test_ocr_table_applies_to_every_backend_that_has_the_option(tmp_path):
    path = _toml(tmp_path, '[ocr]\nlanguage = "deu"\nmax_dpi = 200\n[ocr.rapidocr]\nmax_dpi = 120\n')
    mode = ingest_options(load_settings(config_files=[path]), nougat_model="/models/nougat").ocr
    assert options_for(mode, "tesseract") == {"language": "deu", "max_dpi": 200}
    assert options_for(mode, "rapidocr") == {"max_dpi": 120}
    assert options_for(mode, "nougat") == {"model": "/models/nougat"}


def test_flat_keys_still_work_and_defaults_come_from_settings(tmp_path):
    path = _toml(tmp_path, 'rerank = "bm25"\ndepth = 50\nchunk_size = 128\n')
    settings = load_settings(config_files=[path])
    assert search_options(settings).rerank == "bm25" and search_options(settings).depth == 50
    assert ingest_options(settings).chunk_size == 128
    assert search_options().depth == load_settings(config_files=[]).depth == 1000
    assert ingest_options().chunk_overlap == load_settings(config_files=[]).chunk_overlap


def test_models_lists_every_option_with_its_default(cli):
    result = cli("models", "--json")
    assert result.code == 0
    options = result.json()["options"]
    assert options["rerank"]["llm"] == {"window": 20, "step": 10, "passage_tokens": 128}
    assert options["retrieve"]["bm25-prf"]["prf_terms"] == 10
    assert options["ocr"]["tesseract"] == {"language": "eng", "max_dpi": 300}
    assert "llm" not in options["rerank"]["upr"] and "index" not in options["retrieve"]["hyde"]  # shared settings


def _broken_reranker(tmp_path: Path, monkeypatch) -> None:
    """A reranker whose module fails on import, and not with an ImportError (built for another machine, say)."""
    (tmp_path / "broken_reranker.py").write_text('raise RuntimeError("built for another CPU")\n', encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    from ragchain_cli.rerank import RERANKERS

    monkeypatch.setitem(RERANKERS._entries, "broken", "broken_reranker:BrokenReranker")
    monkeypatch.setitem(RERANKERS._help, "broken", "a reranker that cannot be imported here")


def test_models_lists_a_component_that_fails_to_import_as_unavailable_with_the_reason(cli, tmp_path, monkeypatch):
    _broken_reranker(tmp_path, monkeypatch)
    result = cli("models", "--json")
    assert result.code == 0, result.err
    payload = result.json()
    assert "broken" in payload["rerankers"]
    assert payload["unavailable"]["rerankers"]["broken"] == "RuntimeError: built for another CPU"


def test_models_on_a_terminal_marks_it_unavailable_in_one_line(cli, tmp_path, monkeypatch):
    _broken_reranker(tmp_path, monkeypatch)
    result = cli("models", "--no-json")
    assert result.code == 0, result.err
    lines = [line.split() for line in result.out.splitlines() if "broken" in line]
    assert lines == [["broken", "unavailable:", "RuntimeError:", "built", "for", "another", "CPU"]]


def test_models_lists_a_kind_whose_registry_fails_to_import(cli, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ragchain_cli.ingest.engines", None)  # importing it fails
    result = cli("models", "--json")
    assert result.code == 0, result.err
    assert result.json()["unavailable"]["engines"]["ragchain_cli.ingest.engines"].startswith("ModuleNotFoundError")
