"""Words are found however the document typed them (issue 34): the one normalisation (normalize.py)
at ingest and query time, and accent folding in the lexical index (stores/analyzer.py). Real PDFs made
with PyMuPDF, real Tantivy and LanceDB indexes, through the CLI."""

from __future__ import annotations

import sqlite3
import sys
import unicodedata
from pathlib import Path

import pytest

from ragchain_cli.stores.analyzer import analyzer
from ragchain_cli.normalize import DOUBLE_QUOTES, INVISIBLE, SINGLE_QUOTES, SPACES, normalize

LIGATURE_WORDS = {"configured": "conﬁgured", "flow": "ﬂow", "first": "ﬁrst", "efficient": "eﬃcient",
                  "offshore": "oﬀshore", "baffled": "baﬄed"}
SOFT_HYPHENED = {"documentation": "docu\u00admentation", "interferometer": "inter\u00adfero\u00admeter"}


# -- normalize() -----------------------------------------------------------------------------
@pytest.mark.parametrize("typed, plain", [
    ("conﬁgured ﬂow ﬁrst eﬃcient oﬀ baﬄed ﬆar", "configured flow first efficient off baffled star"),
    ("docu\u00admentation", "documentation"),
    ("photo\u200bsyn\u200cthe\u200dsis\u2060\ufeff", "photosynthesis"),
    ("walrus\u00a0colony\u2009near\u202fthe\u3000fjord\u2003", "walrus colony near the fjord "),
    ("what’s ‘quoted’ “double” „low‟", "what's 'quoted' \"double\" \"low\""),
    ("ＴＡＮＧＯ ｓｅｑｕｅｎｃｅ １２３", "TANGO sequence 123"),
    ("x² H₂O", "x2 H2O"),
    ("cafe\u0301", "café"),  # a combining accent is composed: the stored text keeps the accent
    ("café Zürich", "café Zürich"),
    ("plain ascii, unchanged.", "plain ascii, unchanged."),
])
def test_normalize_makes_each_character_class_plain(typed, plain):
    assert normalize(typed) == plain


def test_normalize_is_a_fixed_point_of_itself_and_of_nfkc():
    """Over every code point NFKC changes and every one normalize() maps: normalising twice, or NFKC
    after it, changes nothing (so no stored chunk holds a character that NFKC changes)."""
    tables = set(INVISIBLE + SINGLE_QUOTES + DOUBLE_QUOTES + SPACES)
    special = [chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF
               and (chr(c) in tables or unicodedata.normalize("NFKC", chr(c)) != chr(c))]
    assert len(special) > 4000
    for ch in special:
        once = normalize(ch)
        assert normalize(once) == once and unicodedata.normalize("NFKC", once) == once, hex(ord(ch))
        assert not set(once) & tables, hex(ord(ch))
    text = "e\u00ad\u0301 A\u200b\u030a ﬁ\u00a0\u0301"  # a removed character between a letter and its accent
    assert unicodedata.normalize("NFKC", normalize(text)) == normalize(text) == "é Å fi \u0301"


def test_the_analyzer_folds_accents_and_ligatures_to_the_same_terms():
    folded = ["cafe", "zurich", "naiv"]
    assert analyzer().analyze("Café Zürich naïve") == analyzer().analyze("cafe zurich naive") == folded
    assert analyzer().analyze("conﬁgured") == analyzer().analyze("configured")


# -- through the CLI -------------------------------------------------------------------------
def _ligature_pdf(path: Path) -> Path:
    """A PDF whose text layer holds ligature characters (U+FB00-FB04) and soft hyphens, as LaTeX and
    word processors write them: PyMuPDF's TextWriter with its Helvetica, which has those glyphs."""
    import pymupdf

    doc = pymupdf.open()
    lines = [f"Page one: the {LIGATURE_WORDS['configured']} pump had a steady {LIGATURE_WORDS['flow']}.",
             f"The {LIGATURE_WORDS['first']} run was {LIGATURE_WORDS['efficient']} and "
             f"{LIGATURE_WORDS['offshore']} crews were {LIGATURE_WORDS['baffled']}.",
             f"Read the {SOFT_HYPHENED['documentation']} of the {SOFT_HYPHENED['interferometer']}."]
    page = doc.new_page()
    writer = pymupdf.TextWriter(page.rect)
    font = pymupdf.Font("helv")
    for number, line in enumerate(lines):
        writer.append((72, 72 + 24 * number), line, font=font, fontsize=11)
    writer.write_text(page)
    doc.set_metadata({"title": "Pump ﬁeld notes", "creationDate": "D:20240102030405"})
    doc.save(str(path))
    doc.close()
    return path


FILES = {
    "zero-width.txt": "Notes on photo\u200bsynthesis and gly\u200dco\u200clysis in the \ufeffchloroplast.\n",
    "spaces.txt": "A walrus\u00a0colony lives near the\u2009fjord by the\u3000glacier.\n",
    "curly.txt": "Here is what’s known about the narwhal’s tusk, the “unicorn” of the sea.\n",
    "straight.txt": "Here is what's known about the dugong's diet of seagrass.\n",
    "full-width.txt": "The ＴＡＮＧＯ sequence numbers ｒｅｃｏｒｄｅｄ here.\n",
    "accented.txt": "Un café crème à Zürich, près du lac.\n",
    "plain.txt": "A cafe by the lake in Zurich serves espresso.\n",
}


@pytest.fixture
def typed_index(tmp_path):
    corpus = tmp_path / "typed"
    corpus.mkdir()
    _ligature_pdf(corpus / "pump.pdf")
    for name, text in FILES.items():
        (corpus / name).write_text(text, encoding="utf-8")
    return corpus, tmp_path / "index"


def _ingest(cli, corpus, index) -> dict:
    result = cli("ingest", corpus, "--index", index, "--json")
    assert result.code == 0, result.err
    return result.json()


def _bm25(cli, index, query: str) -> list[dict]:
    result = cli("search", query, "--retrievers", "bm25", "--index", index, "-k", "10", "--json")
    assert result.code == 0, result.err
    return result.json()["hits"]


def _stored_texts(index: Path) -> list[str]:
    with sqlite3.connect(index / "docstore.sqlite") as conn:
        return [row[0] for row in conn.execute("SELECT text FROM chunks")] + \
               [row[0] for row in conn.execute("SELECT title FROM documents")]


def test_words_are_found_however_the_documents_typed_them(typed_index, cli):
    corpus, index = typed_index
    _ingest(cli, corpus, index)
    assert all(unicodedata.normalize("NFKC", t) == t and not set(t) & set(INVISIBLE) for t in _stored_texts(index))
    for word in [*LIGATURE_WORDS, *SOFT_HYPHENED]:
        hits = _bm25(cli, index, word)
        assert hits and hits[0]["doc_id"] == "typed/pump.pdf", (word, hits)
        assert word in hits[0]["snippet"].lower(), (word, hits[0]["snippet"])  # shown as typed plainly
    assert _bm25(cli, index, "field notes")[0]["title"] == "Pump field notes"
    for word, name in [("photosynthesis", "zero-width.txt"), ("glycolysis", "zero-width.txt"),
                       ("chloroplast", "zero-width.txt"), ("tango", "full-width.txt"), ("recorded", "full-width.txt")]:
        assert _bm25(cli, index, word)[0]["doc_id"] == f"typed/{name}", word
    spaced = _bm25(cli, index, "walrus colony")[0]
    assert spaced["doc_id"] == "typed/spaces.txt" and "walrus colony" in spaced["snippet"]
    assert "the fjord by the glacier" in spaced["snippet"]


def test_cafe_and_cafe_with_an_accent_find_each_other(typed_index, cli):
    corpus, index = typed_index
    _ingest(cli, corpus, index)
    for query in ("cafe", "café", "Zurich", "Zürich", "CAFÉ"):
        found = {h["doc_id"]: h for h in _bm25(cli, index, query)}
        assert set(found) == {"typed/accented.txt", "typed/plain.txt"}, query
        assert "café" in found["typed/accented.txt"]["snippet"]  # the document's own spelling is shown


def test_curly_and_straight_apostrophes_find_each_other(typed_index, cli):
    corpus, index = typed_index
    _ingest(cli, corpus, index)
    curly = _bm25(cli, index, "what's narwhal")[0]
    assert curly["doc_id"] == "typed/curly.txt" and "what's known about the narwhal's tusk" in curly["snippet"]
    assert '"unicorn"' in curly["snippet"]
    assert _bm25(cli, index, "what’s dugong’s")[0]["doc_id"] == "typed/straight.txt"
    assert _bm25(cli, index, "narwhal’s")[0]["doc_id"] == "typed/curly.txt"


def test_ask_reads_the_plainly_typed_question_against_normalised_passages(typed_index, cli):
    corpus, index = typed_index
    _ingest(cli, corpus, index)
    result = cli("ask", "Which run was ﬁrst and eﬃcient?", "--index", index, "--retrievers", "bm25",
                 "--no-generate", "--json")
    assert result.code == 0, result.err
    top = result.json()["hits"][0]
    assert top["doc_id"] == "typed/pump.pdf" and "The first run was efficient" in top["text"]


def _old_version_build(monkeypatch, cli, corpus, index) -> None:
    """Ingest as the version before issue 34 did: no normalisation, Tantivy's en_stem analyzer,
    no `normalization` in the manifest."""
    import tantivy

    from ragchain_cli.ingest import tasks
    from ragchain_cli.stores import index as index_module
    from ragchain_cli.stores import lexical

    def en_stem():
        return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).filter(tantivy.Filter.remove_long(40))
                .filter(tantivy.Filter.lowercase()).filter(tantivy.Filter.stemmer("english")).build())

    with monkeypatch.context() as patch:
        patch.setattr(tasks, "normalize", lambda text: text)
        patch.setattr(lexical, "TOKENIZER", "en_stem")
        patch.setattr(lexical, "analyzer", en_stem)
        patch.setattr(index_module, "TOKENIZER", "en_stem")
        _ingest(cli, corpus, index)
    with sqlite3.connect(index / "docstore.sqlite") as conn:
        conn.execute("DELETE FROM meta WHERE key = 'normalization'")
    assert any("ﬁ" in t for t in _stored_texts(index))


def test_an_index_built_before_is_refused_then_rebuilt_once_by_ingest(typed_index, cli, monkeypatch):
    corpus, index = typed_index
    _old_version_build(monkeypatch, cli, corpus, index)
    refused = cli("search", "configured", "--retrievers", "bm25", "--index", index, "--json")
    assert refused.code == 4 and "en_stem" in refused.err and "ragchain ingest" in refused.err
    report = _ingest(cli, corpus, index)
    assert report["upgraded"] == ["renormalize", "reanalyze"]
    assert report["files_ingested"] == len(FILES) + 1 and 0 < report["vectors_reused"] < report["chunks_added"]
    assert all(unicodedata.normalize("NFKC", t) == t for t in _stored_texts(index))
    assert _bm25(cli, index, "configured")[0]["doc_id"] == "typed/pump.pdf"
    assert {h["doc_id"] for h in _bm25(cli, index, "cafe")} == {"typed/accented.txt", "typed/plain.txt"}
    check = cli("check", "--index", index, "--json")
    assert check.code == 0, check.out
    again = _ingest(cli, corpus, index)  # stable from now on: nothing read or embedded again
    assert again["upgraded"] == [] and again["files_unchanged"] == len(FILES) + 1 and again["chunks_added"] == 0
