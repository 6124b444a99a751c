"""Loaders on files the tests write: structure kept, bad input refused with a reason."""

from pathlib import Path

import pytest

from ragchain_cli.errors import LoaderError
from ragchain_cli.ingest.loaders import LoadOptions, load

from helpers import make_pdf

OPTS = LoadOptions(fallback_date="2020-01-01T00:00:00+00:00")


def _write(path: Path, data) -> Path:
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


def test_markdown_front_matter_and_sections(tmp_path):
    md = _write(tmp_path / "a.md", "---\ntitle: Lakes\ndate: 2024-05-01\n---\n# Intro\nhello\n## Deep\nwater\n")
    [doc] = load(md, "a.md", OPTS)
    assert (doc.title, doc.date) == ("Lakes", "2024-05-01")
    assert [b.section for b in doc.blocks] == ["Intro", "Intro > Deep"]


def test_markdown_without_front_matter_uses_first_heading_and_file_date(tmp_path):
    md = _write(tmp_path / "b.md", "# Title here\n\nSome text.\n```\n# not a heading\n```\n")
    [doc] = load(md, "b.md", OPTS)
    assert doc.title == "Title here" and doc.date == OPTS.fallback_date
    assert len(doc.blocks) == 1


def test_html_drops_script_style_and_nav(tmp_path):
    html = "<html><head><title>T</title><style>.zzstyle{}</style></head><body><nav>menu</nav>" \
           "<h1>Head</h1><p>Visible text</p><script>var zzscriptword=1;</script>" \
           "<table><tr><td>a</td><td>b</td></tr></table></body></html>"
    [doc] = load(_write(tmp_path / "p.html", html), "p.html", OPTS)
    text = " ".join(b.text for b in doc.blocks)
    assert "Visible text" in text and "a | b" in text
    assert "zzscriptword" not in text and "zzstyle" not in text and "menu" not in text
    assert doc.title == "T" and doc.blocks[0].section == "Head"


def test_markdown_table_rows_name_their_columns(tmp_path):
    text = ("# Codes\n\n| Code | Meaning | Action |\n|------|:---|---:|\n| E-1 | Low battery. | Replace it. |\n"
            "| E-2 |  | Check the a\\|b cable |\n\nAfter the table.\n```\n| x | y |\n|---|---|\n| 1 | 2 |\n```\n")
    [doc] = load(_write(tmp_path / "t.md", text), "t.md", OPTS)
    lines = doc.blocks[0].text.split("\n")
    assert "Code: E-1; Meaning: Low battery; Action: Replace it." in lines
    assert "Code: E-2; Action: Check the a|b cable." in lines  # an empty cell is left out
    table = lines[: lines.index("After the table.")]
    assert not any(line.startswith("|---") or line.startswith("| Code") for line in table)
    assert "After the table." in lines and "| 1 | 2 |" in lines  # a fenced table stays as written


def test_html_table_rows_name_their_columns(tmp_path):
    html = ("<html><body><h1>Ferry</h1><table><caption>Departures</caption>"
            "<thead><tr><th>Days</th><th>From the island</th></tr></thead>"
            "<tbody><tr><td>Sunday</td><td>11:00, 17:40</td></tr><tr><td>Monday</td></tr></tbody></table>"
            "</body></html>")
    [doc] = load(_write(tmp_path / "f.html", html), "f.html", OPTS)
    lines = doc.blocks[0].text.split("\n")
    assert lines == ["Ferry", "Departures", "Days: Sunday; From the island: 11:00, 17:40.", "Monday"]


def test_html_definition_list_reads_terms_with_definitions(tmp_path):
    html = "<html><body><dl><dt>Hypolimnion</dt><dd>The cold bottom layer. It stays cold.</dd><dt>Alone</dt></dl></body></html>"
    [doc] = load(_write(tmp_path / "g.html", html), "g.html", OPTS)
    assert doc.blocks[0].text.split("\n") == ["Hypolimnion: The cold bottom layer. It stays cold.", "Alone"]


def test_pdf_pages_and_metadata(tmp_path):
    pdf = make_pdf(tmp_path / "d.pdf", ["first page words", "second page words"])
    [doc] = load(pdf, "d.pdf", OPTS)
    assert [b.page for b in doc.blocks] == [1, 2]
    assert "second page" in doc.blocks[1].text
    assert doc.title == "Test PDF" and doc.date == "2023-04-05T06:07:08"


def test_encrypted_pdf_needs_password(tmp_path):
    pdf = make_pdf(tmp_path / "secret.pdf", ["classified words"], encrypt_password="pw")
    with pytest.raises(LoaderError, match="--pdf-password"):
        load(pdf, "secret.pdf", OPTS)
    with pytest.raises(LoaderError, match="wrong"):
        load(pdf, "secret.pdf", LoadOptions(pdf_password="nope"))
    [doc] = load(pdf, "secret.pdf", LoadOptions(pdf_password="pw"))
    assert "classified" in doc.blocks[0].text


def test_jsonl_keeps_ids_and_reports_bad_lines(tmp_path):
    good = _write(tmp_path / "c.jsonl", '{"_id": "x1", "title": "T", "text": "body"}\n\n{"_id": 7, "text": "b2"}\n')
    docs = load(good, "c.jsonl", OPTS)
    assert [d.doc_id for d in docs] == ["x1", "7"] and docs[0].title == "T"
    bad = _write(tmp_path / "bad.jsonl", '{"_id": "x1", "text": "ok"}\n{not json\n')
    with pytest.raises(LoaderError, match="line 2"):
        load(bad, "bad.jsonl", OPTS)
    dup = _write(tmp_path / "dup.jsonl", '{"_id": "a", "text": "1"}\n{"_id": "a", "text": "2"}\n')
    with pytest.raises(LoaderError, match="duplicate"):
        load(dup, "dup.jsonl", OPTS)


def test_gzipped_jsonl(tmp_path):
    import gzip

    path = tmp_path / "corpus.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write('{"_id": "g1", "title": "", "text": "gz body"}\n')
    [doc] = load(path, "corpus.jsonl.gz", OPTS)
    assert doc.doc_id == "g1"


@pytest.mark.parametrize(
    "name, data, reason",
    [
        ("empty.txt", b"", "empty"),
        ("blank.md", b"  \n\n", "no text"),
        ("binary.txt", b"\x7fELF\x00\x00\x01binary", "binary"),
        ("latin1.txt", "caf\xe9 cr\xe8me".encode("latin-1"), "invalid UTF-8"),
        ("fake.pdf", b"this is not a pdf at all", "not a PDF"),
        ("truncated.pdf", b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog", "PDF"),
        ("bad.jsonl.gz", b"not gzip", "gzip"),
    ],
)
def test_bad_files_raise_loader_errors_with_reasons(tmp_path, name, data, reason):
    with pytest.raises(LoaderError, match=reason):
        load(_write(tmp_path / name, data), name, OPTS)
