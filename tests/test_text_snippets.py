"""A hit's snippet shows where the query's words are, not only the chunk's first characters."""

from __future__ import annotations

from ragchain_cli.snippets import SNIPPET_WIDTH, clipped, snippet

FILLER = "The field station keeps a boat log and a sample register for every trip on the lake. " * 4
TEXT = FILLER + "Site 7, Heron Inlet. The inlet is closed to sampling from 1 April to 15 July while ospreys nest."


def test_the_snippet_opens_at_the_sentence_that_holds_the_query_words():
    shown = snippet(TEXT, "When is Heron Inlet closed to sampling?")
    assert shown.startswith("... Site 7, Heron Inlet.") and "closed to sampling" in shown
    assert len(shown) <= SNIPPET_WIDTH


def test_without_a_query_or_a_matching_word_the_snippet_is_the_chunk_head():
    shown = snippet(TEXT)
    assert shown == snippet(TEXT, "walrus tusk") and len(shown) <= SNIPPET_WIDTH
    assert shown.endswith(" ...") and " ".join(TEXT.split()).startswith(shown[:-len(" ...")])


def test_a_snippet_cut_short_ends_at_a_word_and_says_so():
    assert clipped("take the replacement sample at the entrance of the inlet", 40) == "take the replacement sample at the ..."
    assert clipped("short enough", 40) == "short enough"
    assert not snippet(TEXT, "When is Heron Inlet closed to sampling?").endswith(" e")


def test_a_short_chunk_is_shown_whole_with_its_whitespace_folded():
    assert snippet("Heron  Inlet\n is closed.", "heron") == "Heron Inlet is closed."


def test_words_are_matched_as_the_index_stems_them_and_the_window_with_more_of_them_wins():
    text = FILLER + "Ospreys nest here. " + FILLER + "Nesting ospreys close the inlet in spring."
    shown = snippet(text, "osprey nests inlet")
    assert "Nesting ospreys close the inlet" in shown  # three query words, where the first mention holds two
