"""The terminal's version note names only the groups of the passages an answer lists (no model)."""

from __future__ import annotations

import io

from rich.console import Console

from ragchain_cli.cli.ask import _versions

GROUP = {"how": "fetched", "newest": "policy-2025.md", "older": ["policy-2021.md"]}


def _shown(payload: dict) -> str:
    sink = io.StringIO()
    _versions(Console(file=sink, width=200), payload)
    return sink.getvalue()


def test_an_answer_from_another_document_does_not_name_a_version_group_it_did_not_list():
    payload = {"answered": True, "hits": [{"doc_id": "field-guide.pdf"}], "versions": [GROUP]}
    assert _shown(payload) == ""


def test_an_answer_that_lists_the_newest_version_names_its_group():
    payload = {"answered": True, "hits": [{"doc_id": "policy-2025.md"}], "versions": [GROUP]}
    assert "answered from the newest version, policy-2025.md" in _shown(payload)


def test_a_refusal_names_every_group_it_reconciled():
    payload = {"answered": False, "hits": [{"doc_id": "field-guide.pdf"}], "versions": [GROUP]}
    assert "policy-2021.md" in _shown(payload)


def test_a_refusal_leaves_out_a_group_whose_older_version_said_nothing_of_the_question():
    said = {"sentence": "Staff may work from home on up to two days per week."}
    unrelated = {"answered": False, "question": "Do adult mayflies have working mouths?",
                 "hits": [{"doc_id": "field-guide.pdf"}], "versions": [{**GROUP, "older_said": said}]}
    assert _shown(unrelated) == ""
    related = {**unrelated, "question": "Can staff work from home on Fridays?"}
    assert "Staff may work from home on up to two days per week" in _shown(related)
