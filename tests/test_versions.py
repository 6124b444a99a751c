"""Version groups at ingest: names up to a year/version token, near-duplicates, what must not group,
and groups kept up to date as files are added, changed and deleted (real stores and embedder)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

import versioned_corpus as vc
from ragchain_cli.ingest.versions import bands, jaccard, name_of, shingles


@pytest.mark.parametrize(("text", "key", "version"), [
    ("remote-work-policy-2021", "remote work policy", (2021,)),
    ("Remote Work Policy (2025 revision)", "remote work policy", (2025,)),
    ("Handbook v3", "handbook", (3,)),
    ("Handbook version 2.1", "handbook", (2, 1)),
    ("Laboratory Safety Rules, 2019 edition", "laboratory safety rules", (2019,)),
    ("Chapter 2", "chapter 2", ()),  # a bare number is part of the name
    ("staff-meeting-2024-11-07", "", (2024, 11, 7)),  # dated to the day: one event of a series
    ("log_20241107", "", (20241107,)),
    ("2021", "", (2021,)),
])
def test_names_lose_their_version_tokens(text, key, version):
    name = name_of(text)
    assert (name.key, name.version) == (key, version)


def test_near_duplicates_share_a_band_and_unrelated_texts_do_not():
    base = " ".join(f"word{i}" for i in range(300))
    edited = base.replace("word150 word151 word152", "changed text here")
    other = " ".join(f"term{i}" for i in range(300))
    a, b, c = shingles([base]), shingles([edited]), shingles([other])
    assert jaccard(a, b) > 0.9 and jaccard(a, c) == 0.0
    assert set(bands(a)) & set(bands(b)) and not set(bands(a)) & set(bands(c))


@pytest.mark.parametrize("words", range(0, 8))
def test_short_texts_and_batches_shingle_like_one_text_at_a_time(words):
    from ragchain_cli.ingest.shingles import document_shingles

    text = " ".join(f"w{i}" for i in range(words))
    expected = 0 if not words else max(1, words - 4)  # fewer than five words: one shingle of them all
    assert len(shingles([text])) == expected
    alone, *_ = document_shingles([[text]])
    together = document_shingles([["Caf\u00e9 \x00 one"], [text], [text, "x y"]])
    assert set(alone.tolist()) == set(together[1].tolist()) == shingles([text])
    assert set(together[2].tolist()) == shingles([text, "x y"])


def groups(index: Path) -> list[set[str]]:
    conn = sqlite3.connect(index / "docstore.sqlite")
    found: dict[str, set[str]] = {}
    for group, doc in conn.execute("SELECT group_id, doc_id FROM version_docs WHERE group_id IS NOT NULL"):
        found.setdefault(group, set()).add(Path(doc).name)
    conn.close()
    return sorted(found.values(), key=sorted)


@pytest.fixture(scope="module")
def versioned_index(tmp_path_factory) -> Path:
    from ragchain_cli.cli.app import run

    base = tmp_path_factory.mktemp("versioned")
    vc.write(base / "versioned")
    if run(["ingest", str(base / "versioned"), "--index", str(base / "index"), "--json"]) != 0:
        raise RuntimeError("versioned corpus ingest failed")
    return base / "index"


def test_families_group_and_look_alikes_do_not(versioned_index):
    # renamed by year, v1/v2/v3, "(revised)", editions, and a near-duplicate under another name;
    # the meeting series (same name, dated to the day) and the two "Boat Safety ..." titles stay apart
    assert groups(versioned_index) == sorted(vc.GROUPS, key=sorted)


def test_status_counts_groups(versioned_index, cli):
    result = cli("status", "--index", versioned_index, "--json")
    assert result.code == 0, result.err
    listed = result.json()["versions"]
    assert {k: listed[k] for k in ("groups", "documents", "superseded")} == {"groups": 6, "documents": 14,
                                                                            "superseded": 8}
    names = [(Path(g["doc_id"]).name, {Path(d).name for d in g["older"]}) for g in listed["newest"]]
    assert {newest for newest, _ in names} == {q["newest"] for q in vc.QUESTIONS}
    assert sorted(({newest} | older for newest, older in names), key=sorted) == sorted(vc.GROUPS, key=sorted)


def test_status_lists_version_groups_on_a_terminal(versioned_index, cli):
    result = cli("status", "--index", versioned_index, "--no-json")
    assert result.code == 0, result.err
    text = " ".join(result.out.split())  # the console wraps long lines
    assert "travel-expenses-v3.md supersedes versioned/travel-expenses-v1.md, versioned/travel-expenses-v2.md" in text


def test_search_latest_answers_every_family_from_its_newest_revision(versioned_index, cli):
    for item in vc.QUESTIONS:
        plain = cli("search", item["question"], "--index", versioned_index, "-k", "5", "--json").json()["hits"]
        latest = cli("search", item["question"], "--index", versioned_index, "-k", "5", "--latest", "--json")
        assert latest.code == 0, latest.err
        hits = latest.json()["hits"]
        names = [Path(h["doc_id"]).name for h in hits]
        assert item["newest"] in names and not set(names) & vc.older_versions(item["newest"]), item["question"]
        assert all(h["superseded_by"] is None for h in hits)
        for hit in plain:  # without --latest older versions are shown, marked
            if Path(hit["doc_id"]).name in vc.older_versions(item["newest"]):
                assert Path(hit["superseded_by"]).name == item["newest"]


def _policy(title: str, date: str, days: str, extra: str = "") -> str:
    return (f"---\ntitle: {title}\ndate: {date}\n---\n\n# {title}\n\nStaff of the ferry office may work from home "
            f"on up to {days} days per week, agreed with their manager. {extra}\n")


def test_groups_follow_files_added_changed_and_deleted(tmp_path, cli):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "handbook-v2.md").write_text(_policy("Ferry Office Handbook v2", "2022-01-01", "two"))
    (docs / "timetable.md").write_text(_policy("Winter Timetable", "2023-01-01", "no").replace(
        "Staff of the ferry office may work from home", "Boats leave the harbour at nine"))
    index = tmp_path / "index"
    assert cli("ingest", docs, "--index", index, "--json").code == 0
    assert groups(index) == []
    (docs / "handbook-v3.md").write_text(_policy("Ferry Office Handbook v3", "2024-01-01", "three",
                                                 "Core hours are ten to two. Laptops are provided."))
    assert cli("ingest", docs, "--index", index, "--json").code == 0  # joins the existing document
    assert groups(index) == [{"handbook-v2.md", "handbook-v3.md"}]
    hits = cli("search", "days per week from home", "--index", index, "--latest", "--json").json()["hits"]
    assert {Path(h["doc_id"]).name for h in hits} == {"handbook-v3.md", "timetable.md"}
    (docs / "handbook-v3.md").write_text("---\ntitle: Ferry Office Handbook v3\n---\n\nThe canteen serves soup "
                                         "on Fridays; bicycles go in the shed behind the ticket office.\n")
    assert cli("ingest", docs, "--index", index, "--json").code == 0  # rewritten unrelated: leaves the group
    assert groups(index) == []
    shutil.copy(docs / "handbook-v2.md", docs / "handbook-v2-copy.md")
    assert cli("ingest", docs, "--index", index, "--json").code == 0
    assert groups(index) == [{"handbook-v2.md", "handbook-v2-copy.md"}]
    (docs / "handbook-v2.md").unlink()
    assert cli("ingest", docs, "--index", index, "--json").code == 0  # deleted: the group dissolves
    assert groups(index) == []
    status = cli("status", "--index", index, "--json").json()
    assert status["versions"]["groups"] == 0 and status["consistent"]


def test_ask_reads_every_family_from_its_newest_revision_though_half_rank_an_older_first(versioned_index, cli):
    """The passages default `ask` reads (issue 32): the newest revision of the family asked about, never an
    older one, although the search ranks an older revision first for half of the questions."""
    def read(question: str, *flags: str) -> list[str]:
        result = cli("ask", question, "--index", versioned_index, "--no-generate", "--json", *flags)
        assert result.code == 0, result.err
        return [Path(h["doc_id"]).name for h in result.json()["hits"]]

    older_first = 0
    for item in vc.QUESTIONS:
        family = vc.older_versions(item["newest"]) | {item["newest"]}
        ranked = [name for name in read(item["question"], "--versions", "all") if name in family]
        older_first += ranked[0] != item["newest"]
        newest = read(item["question"])
        assert [n for n in newest if n in family][0] == item["newest"], item["question"]
        assert not set(newest) & vc.older_versions(item["newest"]), item["question"]
    assert older_first == len(vc.QUESTIONS) // 2


def test_an_index_with_bands_hashed_the_old_way_is_rehashed_and_links_new_copies(tmp_path, cli):
    """Before issue 30 a shingle was the crc32 of its joined words. The next ingest rehashes the stored
    bands of such an index (and records it), so a near-duplicate written then finds the other document
    by its bands (a different name and title: no name link)."""
    import zlib

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "handbook-v2.md").write_text(_policy("Ferry Office Handbook v2", "2022-01-01", "two"))
    (docs / "timetable.md").write_text(_policy("Winter Timetable", "2023-01-01", "no").replace(
        "Staff of the ferry office may work from home", "Boats leave the harbour at nine"))
    index = tmp_path / "index"
    assert cli("ingest", docs, "--index", index, "--json").code == 0
    conn = sqlite3.connect(index / "docstore.sqlite")
    fresh = sorted(conn.execute("SELECT band, doc_id FROM version_bands"))
    conn.execute("DELETE FROM meta WHERE key = 'shingle_hash'")  # as an index built before it was recorded
    conn.execute("UPDATE version_bands SET band = (band & ~4294967295) + (? + band) % 4294967296",
                 (zlib.crc32(b"old"),))
    conn.commit()
    assert sorted(conn.execute("SELECT band, doc_id FROM version_bands")) != fresh
    conn.close()
    extra = "Desks are booked a week ahead. Printing is done at the office. Parking is free for cyclists."
    (docs / "handbook-v2.md").write_text(_policy("Ferry Office Handbook v2", "2022-01-01", "two", extra))
    (docs / "arrangements.md").write_text(_policy("Arrangements", "2022-02-01", "two", extra))  # only its text links it
    assert cli("ingest", docs, "--index", index, "--json").code == 0
    assert groups(index) == [{"arrangements.md", "handbook-v2.md"}]
    conn = sqlite3.connect(index / "docstore.sqlite")
    timetable = {row for row in conn.execute("SELECT band, doc_id FROM version_bands") if "timetable" in row[1]}
    assert timetable == {row for row in fresh if "timetable" in row[1]}  # rehashed as a fresh ingest hashes
    assert conn.execute("SELECT value FROM meta WHERE key = 'shingle_hash'").fetchone() is not None
    conn.close()
