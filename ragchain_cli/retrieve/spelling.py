"""Query words the index never saw, corrected to a word it holds one edit away.

"Are ants found in Antartica?" finds nothing for "Antartica": BM25 skips it, the answer checks
count the question's main subject as missing, and `ask` says the documents do not say. A word is
corrected to the index's spelling ("Antarctica") when all of these hold:

- it is a word of at least MIN_LETTERS letters, not a stop word, and no chunk holds it;
- a stored term is one edit from it (a letter inserted, deleted or changed, or two neighbours
  swapped) and starts with the same letter; the one most chunks hold wins (ties alphabetical);
- that term shares a chunk with more than half of the query's other words that the index holds,
  so the correction fits the query's subject: "Which river flows through Prague?" is not turned
  to "plague", which no chunk mentions with "flows". A one-word query has nothing to check against.

The query is then searched with the word as a chunk spells it, so every retriever (and `ask`'s
evidence and prompt) reads the same corrected query. Nothing is downloaded: the index's own term
dictionary is the dictionary. bench/RESULTS.md has what it changes on both QA halves and SciFact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from .stopwords import STOPWORDS

MIN_LETTERS = 5
_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # the lexical index's tokens: letters and digits


@dataclass(frozen=True)
class Spelling:
    """A query as searched: `text` with each of `changes` (word as typed -> as the index spells it) applied."""

    text: str
    changes: dict[str, str] = field(default_factory=dict)


class Speller:
    """Corrects queries against one index's lexical term dictionary and document store."""

    def __init__(self, lexical, docstore) -> None:
        self.lexical, self.docstore = lexical, docstore

    def correct(self, query: str) -> Spelling:
        words = [w for w in dict.fromkeys(_WORD.findall(query)) if w.lower() not in STOPWORDS
                 and not any(c.isdigit() for c in w)]  # "TNFAIP3", "1855": names and numbers, not typos
        stems = {w: s[0] for w in words if len(s := self.lexical.stems(w)) == 1}
        counts = self.lexical.term_counts(set(stems.values()))
        held = [s for s in dict.fromkeys(stems.values()) if counts[s] > 0]
        changes = {}
        for word, stem in stems.items():
            if counts[stem] == 0 and len(word) >= MIN_LETTERS:
                replacement = self._replacement(word, stem, [s for s in held if s != stem])
                if replacement:
                    changes[word] = _like(word, replacement)
        text = query
        for word, replacement in changes.items():
            text = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", replacement, text)
        return Spelling(text, changes)

    def _replacement(self, word: str, stem: str, others: list[str]) -> str:
        """The word, as a chunk spells it, for the best term one edit from `stem`; '' for none."""
        near = sorted(((-n, t) for t, n in self.lexical.terms_starting(stem[0]) if n > 0 and one_edit(stem, t)))
        if not near:
            return ""
        term = near[0][1]
        shared = self.lexical.chunks_with_both(term, others)
        if others and len(shared) * 2 <= len(others):
            return ""
        chunk_id = next(iter(shared.values()), "") or self._any_chunk(term)
        return self._spelled(word, term, chunk_id)

    def _any_chunk(self, term: str) -> str:
        found = self.lexical.chunks_with_both(term, [term])
        return found.get(term, "")

    def _spelled(self, typed: str, term: str, chunk_id: str) -> str:
        """How the chunk writes the word the index stores as `term`, in the form nearest the typed
        word ("supresses" -> "suppresses", not "suppression"); the term itself if none is found."""
        chunk = self.docstore.chunks([chunk_id]).get(chunk_id) if chunk_id else None
        forms = {w for w in _WORD.findall(chunk.text if chunk is not None else "") if self.lexical.stems(w) == [term]}
        if not forms:
            return term
        return max(sorted(forms), key=lambda w: SequenceMatcher(None, typed.lower(), w.lower()).ratio())


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
