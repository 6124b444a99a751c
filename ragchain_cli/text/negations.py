"""Negated questions over passages that only state the positive: a near miss.

"What is not used to define X?" asks for something the passages deny; passages that only say
"a Turing machine is used to define X" answer a different question ("What is used ...?"), and a
small model answers that one. `negated_words` finds the words a question's main claim negates
("not used", "never reach", "non-binary"); `denies` says whether a sentence holding such a word
could say the negative: a negation just before it ("is not used", "were never reached", "non-
binary") or an exception anywhere in the sentence ("improves F1 on every corpus except GENIA").
A question is a near miss when its negated word stands in the passages and no sentence that holds
it can deny it, and no sentence says its negative in one word of its own ("not allowed" is said by
"closed to all sampling", "not possible" by "impossible": `antonyms`). Negations inside a relative
or conditional clause ("goods not mentioned on the form" is negated in the question and in the
passage alike; "if P is not equal to NP, ...") are the claim's context, not its claim, as in
claims.claim_negations.
"""

from __future__ import annotations

import re

from .sentences import sentences
from .words import STOPWORDS, TOKEN, is_negation, stem, tokens, without_markers

# "no" is left out: "yes/no answers", "no more than", "no one" negate no word after them.
WORD_NEGATIONS = frozenset("not never cannot".split())
PREFIX = "non"  # "non-binary": the tokenizer splits it into "non" and "binary"
EXCEPTIONS = frozenset("except excluding without unlike besides".split())
WINDOW = 3  # words before a word that its negation may stand in ("is not always used")
_CLAUSE_TOKEN = re.compile(r"[,;]|" + TOKEN.pattern, re.UNICODE)  # commas and semicolons end a clause
_CLAUSE = frozenset("who whom whose which that if unless when where whether because while although".split())
_ASKING = frozenset("who whom whose which when where".split())  # in the first LEAD words: the question word
LEAD = 3  # "Which towns ...", "On which corpus ...", "To whom did ..."
# A word's negative said in one word ("not allowed": "forbidden", "closed"). General English, not
# drawn from any document: a passage holding one of these may answer the negated question.
PROHIBITIONS = frozenset("forbidden forbids prohibited prohibits banned bans barred closed shut disallowed".split())
_SAYS_NOT = {
    "allowed permitted let open": " ".join(sorted(PROHIBITIONS)),
    "possible": "impossible",
    "able": "unable",
    "available": "unavailable",
    "included": "excluded",
    "accepted": "rejected refused declined",
    "present": "absent missing",
    "known": "unknown",
    "safe": "unsafe dangerous",
    "legal": "illegal",
    "required needed necessary": "optional unnecessary",
    "paid": "unpaid",
    "used": "unused",
    "visible": "invisible hidden",
}
NEGATIVES = frozenset(" ".join(_SAYS_NOT.values()).split())  # every word that says a negative on its own


def _negates(word: str) -> bool:
    lower = word.lower()
    return lower in WORD_NEGATIONS or lower == PREFIX or lower.endswith(("n't", "n’t"))


def negated_words(question: str) -> list[tuple[str, str]]:
    """(phrase, word) for each negation of the question's main claim and the first word after it that
    is not a stop word: "What cannot be recycled ...?" -> [("cannot be recycled", "recycled")]. Only
    the question's last sentence asks ("I can't sign in. Where is the reset link?"), and its question
    word opens no clause ("Which towns did the railway never reach?" negates "reach")."""
    asked = (sentences(question) or [question])[-1]
    words = [t.lower() for t in _CLAUSE_TOKEN.findall(without_markers(asked))]
    found, clause_open = [], False
    for i, word in enumerate(words):
        if word in _CLAUSE and not (word in _ASKING and i < LEAD):
            clause_open = True
        elif word in {",", ";"}:
            clause_open = False
        elif _negates(word) and not clause_open:
            after = next((j for j in range(i + 1, min(len(words), i + 1 + WINDOW)) if words[j] not in STOPWORDS
                          and not _negates(words[j]) and words[j] not in {",", ";"}), None)
            if after is not None:
                phrase = f"non-{words[after]}" if word == PREFIX else " ".join(words[i:after + 1])
                found.append((phrase, words[after]))
    return found


def denies(sentence: str, word: str) -> bool | None:
    """None when the sentence does not hold the word; else True when it could say the word's negative
    (any negation, "no" included, in the WINDOW words before it, "non" right before it, or an
    exception word anywhere in the sentence)."""
    words = [t.lower() for t in tokens(sentence)]
    target = stem(word)
    at = [i for i, w in enumerate(words) if stem(w) == target]
    if not at:
        return None
    if any(w in EXCEPTIONS for w in words):
        return True
    return any(any(is_negation(w) for w in words[max(0, i - WINDOW):i]) or (i > 0 and words[i - 1] == PREFIX)
               for i in at)


def antonyms(word: str) -> frozenset[str]:
    """The words, as written, that say `word`'s negative on their own ("allowed": "forbidden", "closed";
    matched as whole lowercase words: "close to the shore" says no "closed")."""
    target = stem(word)
    return frozenset(a for words, negatives in _SAYS_NOT.items() if target in {stem(w) for w in words.split()}
                     for a in negatives.split())


def never_said(question: str, held: list[str]) -> list[str]:
    """The question's negated phrases ("not used") whose word the sentences `held` hold but never deny,
    in which no sentence says the word's negative in a word of its own (`antonyms`)."""
    said = []
    for phrase, word in negated_words(question):
        verdicts = [denies(s, word) for s in held]
        negatives = antonyms(word)
        if any(v is False for v in verdicts) and not any(verdicts) and \
                not any(negatives & {t.lower() for t in tokens(s)} for s in held):
            said.append(phrase)
    return said

