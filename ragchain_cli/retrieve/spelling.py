"""Query words the index never saw, corrected to a word it holds one edit away.

"Are ants found in Antartica?" finds nothing for "Antartica": BM25 skips it, the answer checks
count the question's main subject as missing, and `ask` says the documents do not say. A word is
a typo to correct when it has at least MIN_LETTERS letters and no digits, is not a stop word, no
chunk holds it, and it is not an English word: the embedding model's vocabulary (MiniLM's
WordPiece vocab.txt, as typed or singular) is the dictionary, so "otters", "Prague" or "auction"
are words the documents lack, never typos. It becomes
- the stop word one edit from it ("shoud" -> "should", "Whare" -> "Where"), unless it is
  capitalised inside the query (a name: "Thera" is not "there"); or else
- the stored term one edit from it (a letter inserted, deleted or changed, or two neighbours
  swapped) that starts with the same letter, the one most chunks hold (ties alphabetical), when
  that term shares a chunk with more than half of the query's other words the index holds: the
  correction must fit the query's subject ("Which river flows through Pragues?" is not turned to
  "plague", which no chunk mentions with "river" or "flows"). A one-word query has nothing to
  check against.

The query is then searched with the word as the chunks spell it (of the forms in the first
FORM_CHUNKS chunks by ID that hold the term, the one nearest the typed word: the same chunks,
so the same word, in one index and in its shards),
so every retriever, and `ask`'s evidence and prompt, read the same corrected query. Nothing is
downloaded: the index's term dictionary and the model's vocabulary are already here.
bench/RESULTS.md has what it changes on both QA halves and SciFact.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Callable

from ..text.words import STOPWORDS

MIN_LETTERS = 5
FORM_CHUNKS = 20  # chunks read for the forms a corrected word takes
FUNCTION_WORDS = sorted(w for w in STOPWORDS if len(w) >= MIN_LETTERS)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # the lexical index's tokens: letters and digits


@dataclass(frozen=True)
class Spelling:
    """A query as searched: `text` with each of `changes` (word as typed -> as the index spells it) applied."""

    text: str
    changes: dict[str, str] = field(default_factory=dict)

    def note(self) -> str:
        """For a person: 'no passage has "Antartica"; searched for "Antarctica"'."""
        typed = ", ".join(f'"{w}"' for w in self.changes)
        fixed = ", ".join(f'"{w}"' for w in self.changes.values())
        return f"no passage has {typed}; searched for {fixed}"


def speller_for(index) -> "Speller":
    """The speller for one index: its lexical terms and docstore, and the dictionary of the embedding
    model that built it."""
    from ..stores.embedders import DEFAULT_MODEL, vocabulary

    model = index.manifest().get("embed_model", DEFAULT_MODEL)
    return Speller(index.lexical, index.docstore, functools.partial(vocabulary, model))


class Speller:
    """Corrects queries against one index's lexical term dictionary and document store; `dictionary`
    gives English words that are never typos (loaded on the first word no chunk holds)."""

    def __init__(self, lexical, docstore, dictionary: Callable[[], frozenset[str]] = frozenset) -> None:
        self.lexical, self.docstore = lexical, docstore
        self._dictionary, self._words = dictionary, None

    def real_word(self, word: str) -> bool:
        """In the dictionary, as typed or as its singular ("otters" -> "otter")."""
        if self._words is None:
            self._words = self._dictionary()
        forms = {word.lower()}
        if word.lower().endswith("s") and not word.lower().endswith("ss"):  # "suppresss" is no plural
            forms |= {word.lower()[:-1], word.lower().removesuffix("es")}
        return bool(forms & self._words)

    def correct(self, query: str) -> Spelling:
        words = [w for w in dict.fromkeys(_WORD.findall(query)) if w.lower() not in STOPWORDS
                 and not any(c.isdigit() for c in w)]  # "TNFAIP3", "1855": names and numbers, not typos
        stems = {w: s[0] for w in words if len(s := self.lexical.stems(w)) == 1}
        counts = self.lexical.term_counts(set(stems.values()))
        held = [s for s in dict.fromkeys(stems.values()) if counts[s] > 0]
        changes = {}
        first = next(iter(_WORD.findall(query)), "")
        for word, stem in stems.items():
            if counts[stem] == 0 and len(word) >= MIN_LETTERS and not self.real_word(word):
                replacement = (_function_word(word, word == first)
                               or self._replacement(word, stem, [s for s in held if s != stem]))
                if replacement:
                    changes[word] = _like(word, replacement)
        text = query
        for word, replacement in changes.items():
            text = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", replacement, text)
        return Spelling(text, changes)

    def _replacement(self, word: str, stem: str, others: list[str]) -> str:
        """The word, as the chunks spell it, for the best term one edit from `stem`; '' for none."""
        near = sorted(((-n, t) for t, n in self.lexical.terms_starting(stem[0]) if n > 0 and one_edit(stem, t)))
        if not near:
            return ""
        term = near[0][1]
        shared = self.lexical.chunks_with_both(term, others)
        if others and len(shared) * 2 <= len(others):
            return ""
        return self._spelled(word, term)

    def _spelled(self, typed: str, term: str) -> str:
        """How the chunks write the word the index stores as `term`, in the form nearest the typed
        word ("supresses" -> "suppresses", not "suppression"); the term itself if none is found. The
        forms come from the FORM_CHUNKS first chunks (by ID) that hold it, whichever shard holds them."""
        ids = sorted(self.lexical.holders(term))[:FORM_CHUNKS]
        texts = [chunk.index_text() for chunk in self.docstore.chunks(ids).values()]  # the title too
        forms = {w for text in texts for w in _WORD.findall(text) if self.lexical.stems(w) == [term]}
        if not forms:
            return term
        return max(sorted(forms), key=lambda w: SequenceMatcher(None, typed.lower(), w.lower()).ratio())


def _function_word(typed: str, first: bool) -> str:
    """The stop word one edit from a typed word ("shoud" -> "should"); not for a capitalised word
    inside the query (a name: "Thera" is not "there"). '' for none."""
    if typed[:1].isupper() and not first:
        return ""
    near = sorted(w for w in FUNCTION_WORDS if one_edit(typed.lower(), w))
    return near[0] if near else ""


def _like(typed: str, word: str) -> str:
    """The replacement in the typed word's case: 'Antartica' -> 'Antarctica', 'cimbals' -> 'cymbals'."""
    if typed.isupper():
        return word.upper()
    if typed[:1].isupper():
        return word[:1].upper() + word[1:]
    return word.lower() if word[:1].isupper() and not word.isupper() else word


def one_edit(a: str, b: str) -> bool:
    """True when a and b differ by one inserted, deleted or changed letter, or two swapped neighbours."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    return short[i:] == long[i + 1:]
