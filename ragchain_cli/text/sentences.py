"""Sentences: one splitter for every rule that reads text a sentence at a time (the context the model
reads, the answer shown, the answer's citations).

Paragraphs (blank lines) and list items (a line opening with "-", "*", "•" or a digit) are split
first; each paragraph is then cut into sentences by Bling Fire's sentence breaker (a finite-state
model shipped inside its wheel), which knows abbreviations ("e.g.", "et al.", "U.S.") and decimal
points. A very long run without any sentence end is cut to MAX_SENTENCE_CHARS.
"""

from __future__ import annotations

import re

MAX_SENTENCE_CHARS = 600
_BLOCKS = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)")
_TITLE = re.compile(r"(?<![\w.])(Dr|Mr|Mrs|Ms|Prof|St|Mt|Fig|No|Vol|vs|approx)\.\n", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    """The text split into sentences (and list items, paragraphs), each with its spaces folded."""
    out: list[str] = []
    for block in _BLOCKS.split(text):
        flat = " ".join(block.split())
        if flat:
            for sentence in _breaker(flat).split("\n"):
                sentence = sentence.strip()
                out.extend(sentence[i: i + MAX_SENTENCE_CHARS] for i in range(0, len(sentence), MAX_SENTENCE_CHARS))
    return [s for s in out if s]


def first_sentence(text: str) -> tuple[str, bool]:
    """The text's first sentence, and whether the text goes on after it (so that sentence is complete)."""
    found = sentences(text)
    if not found:
        return "", False
    return found[0], len(found) > 1


def _breaker(text: str) -> str:
    import blingfire

    return _TITLE.sub(r"\1. ", blingfire.text_to_sentences(text))
