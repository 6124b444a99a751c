"""answer/versions.py on plain inputs: which passages an answer may be drawn from when they span
versions of one document, and the facts and the note the payload gets (no model, no index)."""

from __future__ import annotations

import pytest

from ragchain_cli.answer.versions import NO_VERSIONS, Lookup, reconcile, with_versions
from ragchain_cli.types import Chunk, Hit

OLD, MID, NEW, OTHER = "policy-2021.md", "policy-2023.md", "policy-2025.md", "faq.txt"
DATES = {OLD: "2021-03-15", MID: "2023-01-01", NEW: "2025-09-01", OTHER: "2024-01-01"}
TEXTS = {OLD: "Staff may work from home on up to **two days per week**. Core hours are 10:00 to 15:00.",
         MID: "Staff may work from home on up to two and a half days per week.",
         NEW: "Staff may now work remotely on up to **three days per week**. Core hours are 10:00 to 15:00.",
         OTHER: "Laptops are supplied by the station."}
QUESTION = "How many days per week can staff work from home?"


def hit(doc_id: str, n: int = 0, score: float = 1.0) -> Hit:
    chunk = Chunk(f"{doc_id}#{n}", doc_id, TEXTS[doc_id], source=doc_id, ordinal=n, date=DATES[doc_id])
    return Hit(chunk.chunk_id, score, doc_id, chunk=chunk)


class Index:
    """The lookups as a small in-memory family: OLD and MID superseded by NEW."""

    def __init__(self, fetchable: bool = True) -> None:
        self.fetchable, self.asked = fetchable, []

    def newest_of(self, doc_id: str) -> str | None:
        return NEW if doc_id in (OLD, MID) else None

    def best_passage_of(self, question: str, doc_id: str) -> Hit | None:
        self.asked.append((question, doc_id))
        return hit(doc_id, 7) if self.fetchable else None

    def lookup(self) -> Lookup:
        return Lookup(self.newest_of, self.best_passage_of)


def ids(hits: list[Hit]) -> list[str]:
    return [h.chunk_id for h in hits]


def test_newest_takes_the_slot_of_its_groups_best_ranked_hit_and_the_older_is_set_aside():
    index = Index()
    chosen = reconcile(QUESTION, [hit(OLD), hit(OTHER), hit(NEW), hit(OLD, 1)], "newest", index.lookup())
    assert ids(chosen.answer_from) == [f"{NEW}#0", f"{OTHER}#0"]
    assert ids(chosen.older) == [f"{OLD}#0", f"{OLD}#1"]
    [group] = chosen.groups
    assert (group.newest, group.how, group.older) == (NEW, "retrieved", [OLD])
    assert index.asked == []  # the newest version was retrieved: nothing fetched


def test_only_an_older_version_retrieved_fetches_the_newest_versions_best_passage():
    index = Index()
    chosen = reconcile(QUESTION, [hit(OTHER), hit(MID), hit(OLD)], "newest", index.lookup())
    assert index.asked == [(QUESTION, NEW)]  # once for the group, however many older versions matched
    assert ids(chosen.answer_from) == [f"{OTHER}#0", f"{NEW}#7"]
    assert [g.how for g in chosen.groups] == ["fetched"] and chosen.groups[0].older == [MID, OLD]


def test_no_passage_of_the_newest_keeps_the_older_and_says_it_is_superseded():
    chosen = reconcile(QUESTION, [hit(OLD), hit(OTHER)], "newest", Index(fetchable=False).lookup())
    assert ids(chosen.answer_from) == [f"{OLD}#0", f"{OTHER}#0"] and chosen.older == []
    payload = {"answer": "Up to two days per week [1].", "answered": True,
               "citations": [{"number": 1, "doc_id": OLD, "cited": True}]}
    settled = with_versions(payload, chosen, lambda h: "unused")
    assert settled["answer"] == f"Up to two days per week [1]. (This comes from {OLD}, which the newer version {NEW} supersedes.)"
    assert settled["citations"][0]["superseded_by"] == NEW
    assert settled["versions"] == [{"newest": NEW, "older": [OLD], "how": "superseded", "answered_from": OLD,
                                    "older_said": None}]


@pytest.mark.parametrize("mode", ["all", "newest"])
def test_all_keeps_every_version_and_no_versions_changes_nothing(mode):
    hits = [hit(OLD), hit(NEW), hit(OTHER)]
    assert reconcile(QUESTION, hits, "all", Index().lookup()).answer_from == hits
    plain = [hit(OTHER), hit(NEW)]
    chosen = reconcile(QUESTION, plain, mode, NO_VERSIONS)
    assert chosen.answer_from == plain and chosen.groups == [] and chosen.older == []


def test_latest_keeps_only_newest_versions_and_names_the_groups_the_search_dropped():
    new = hit(NEW)
    new.older_versions = (OLD,)
    chosen = reconcile(QUESTION, [new, hit(MID), hit(OTHER)], "latest", Index().lookup())
    assert ids(chosen.answer_from) == [f"{NEW}#0", f"{OTHER}#0"]
    assert [(g.newest, g.how, g.older) for g in chosen.groups] == [(NEW, "dropped", [OLD])]


def _answered(doc_id: str) -> dict:
    return {"answer": "Staff may work remotely on up to three days per week [1].", "answered": True,
            "supported": True, "citations": [{"number": 1, "doc_id": doc_id, "cited": True}]}


def test_what_changed_is_quoted_from_the_older_passage_and_the_json_names_the_group():
    chosen = reconcile(QUESTION, [hit(OLD), hit(NEW)], "newest", Index().lookup())
    best = lambda h: "Staff may work from home on up to **two days per week**."  # noqa: E731
    settled = with_versions(_answered(NEW), chosen, best)
    assert settled["answer"] == ('Staff may work remotely on up to three days per week [1]. (The older version, '
                                 f'{OLD} of 2021-03-15, said: "Staff may work from home on up to two days per week.")')
    assert settled["citations"][0]["superseded_by"] is None
    assert settled["versions"] == [{"newest": NEW, "older": [OLD], "how": "retrieved", "answered_from": NEW,
                                    "older_said": {"doc_id": OLD, "chunk_id": f"{OLD}#0", "date": "2021-03-15",
                                                   "sentence": "Staff may work from home on up to **two days per week**."}}]


def test_nothing_is_added_when_the_newest_says_the_same_or_is_not_what_the_answer_cites():
    chosen = reconcile(QUESTION, [hit(OLD), hit(NEW), hit(OTHER)], "newest", Index().lookup())
    same = with_versions(_answered(NEW), chosen, lambda h: "Core hours are 10:00 to 15:00.")
    assert same["answer"] == _answered(NEW)["answer"] and same["versions"][0]["older_said"] is None
    elsewhere = with_versions(_answered(OTHER), chosen, lambda h: "Staff may work from home on up to two days per week.")
    assert elsewhere["answer"] == _answered(OTHER)["answer"]  # the group is named, the answer is not about it
    assert elsewhere["versions"][0]["older_said"]["sentence"].endswith("two days per week.")
    abstained = {"answer": "The documents do not say.", "answered": False, "citations": []}
    said = with_versions(abstained, chosen, lambda h: "Staff may work from home on up to two days per week.")
    assert said["answer"] == "The documents do not say." and said["versions"][0]["older_said"] is not None


def test_all_mode_still_marks_a_cited_older_version_and_retrieval_only_payloads_are_left_alone():
    chosen = reconcile(QUESTION, [hit(OLD), hit(NEW)], "all", Index().lookup())
    settled = with_versions(_answered(OLD), chosen, lambda h: "")
    assert settled["citations"][0]["superseded_by"] == NEW and settled["versions"] == []
    assert settled["answer"] == _answered(OLD)["answer"]
    retrieval = {"question": QUESTION, "hits": []}
    assert with_versions(retrieval, chosen, lambda h: "") is retrieval
