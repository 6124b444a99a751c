"""Query words no chunk holds, corrected against the index's own term dictionary (retrieve/spelling.py)."""

import pytest

from ragchain_cli.retrieve.spelling import one_edit

DOCS = {
    "ants.md": "# Ants\n\nAnts live on every continent except Antarctica. Ant colonies in Antarctica are unknown; "
               "the cold keeps ants away from Antarctica.\n",
    "rivers.md": "# Rivers\n\nThe river flows through the old town. Boats on the river carry timber.\n",
    "history.md": "# History\n\nThe plague reached the town in 1348. The plague killed half of the people.\n",
    "growth.md": "# Growth\n\nSuppression of growth in winter is normal: cold suppresses the growth of algae.\n",
}


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    from ragchain_cli.cli.app import run

    base = tmp_path_factory.mktemp("spelling")
    docs = base / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text)
    assert run(["ingest", str(docs), "--index", str(base / "index"), "--json"]) == 0
    return base / "index"


def test_one_edit_by_hand():
    assert one_edit("antartica", "antarctica")  # a letter left out
    assert one_edit("cimbal", "cymbal")  # a letter changed
    assert one_edit("recieve", "receive")  # two neighbours swapped
    assert one_edit("francisco", "franciscoo")
    assert not one_edit("fransisco", "francisco ")
    assert not one_edit("same", "same")
    assert not one_edit("pragu", "plaque")  # two edits


def test_a_word_no_chunk_holds_is_searched_as_the_index_spells_it(cli, index):
    result = cli("search", "Are ants found in Antartica?", "--retrievers", "bm25", "--index", index, "--json")
    assert result.code == 0, result.err
    payload = result.json()
    assert payload["corrected"] == {"Antartica": "Antarctica"}
    assert payload["searched"] == "Are ants found in Antarctica?"
    assert payload["query"] == "Are ants found in Antartica?"
    assert payload["hits"][0]["doc_id"].endswith("ants.md")


def test_a_correction_must_share_chunks_with_the_other_words(cli, index):
    # "Pragues" is one edit from "plague", which no chunk mentions with "river" or "flows"
    result = cli("search", "Which river flows through Pragues?", "--retrievers", "bm25", "--index", index, "--json")
    assert result.code == 0, result.err
    payload = result.json()
    assert "corrected" not in payload
    assert payload["hits"][0]["doc_id"].endswith("rivers.md")


def test_words_the_index_holds_and_no_spelling_are_left_alone(cli, index):
    held = cli("search", "plague town", "--retrievers", "bm25", "--index", index, "--json").json()
    assert "corrected" not in held
    off = cli("search", "Antartica ants", "--no-spelling", "--retrievers", "bm25", "--index", index, "--json").json()
    assert "corrected" not in off and "searched" not in off


def test_the_terminal_says_what_was_searched(cli, index):
    result = cli("search", "Antartica ants", "--retrievers", "bm25", "--index", index, "--no-json")
    assert result.code == 0, result.err
    assert 'no passage has "Antartica"; searched for "Antarctica"' in result.out


def test_ask_reads_the_corrected_question(cli, index):
    result = cli("ask", "Are ants found in Antartica?", "--no-generate", "--index", index, "--json")
    assert result.code == 0, result.err
    payload = result.json()
    assert payload["question"] == "Are ants found in Antartica?"
    assert payload["searched"] == "Are ants found in Antarctica?"
    assert payload["corrected"] == {"Antartica": "Antarctica"}
    assert payload["hits"][0]["doc_id"].endswith("ants.md")


def test_the_replacement_is_the_indexed_form_nearest_the_typed_word(cli, index):
    # the chunk has "Suppression" and "suppresses" (one stem); the typed "supresses" is nearest the second
    result = cli("search", "cold supresses algae", "--retrievers", "bm25", "--index", index, "--json")
    assert result.code == 0, result.err
    assert result.json()["corrected"] == {"supresses": "suppresses"}


def test_words_with_digits_are_names_not_typos(cli, index):
    # "Antartica2" is one token to the index, as "TNFAIP3" is: not the word "Antartica" misspelt
    result = cli("search", "ants Antartica2", "--retrievers", "bm25", "--index", index, "--json")
    assert result.code == 0, result.err
    assert "corrected" not in result.json()


def test_an_english_word_the_documents_lack_is_not_a_typo(cli, index):
    # "rover" is one edit from "river", which shares chunks with "flows" and "town"; but it is a word
    # of the embedding model's vocabulary, so it is a subject the documents lack, not a typo
    result = cli("search", "Which rover flows through the town?", "--retrievers", "bm25", "--index", index, "--json")
    assert result.code == 0, result.err
    assert "corrected" not in result.json()


def test_a_misspelt_stop_word_is_that_stop_word(cli, index):
    result = cli("search", "Whcih ants shoud avoid Antarctica?", "--retrievers", "bm25", "--index", index, "--json")
    assert result.code == 0, result.err
    payload = result.json()
    assert payload["corrected"] == {"Whcih": "Which", "shoud": "should"}
    assert payload["searched"] == "Which ants should avoid Antarctica?"
