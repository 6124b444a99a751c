"""Answer-quality metrics as small pure functions: one predicted answer against its gold answers.

Every metric takes the predicted text and the gold answers and returns the best value over the
gold answers (a question may have several annotators' answers). Text is compared after SQuAD
normalisation: lower case, punctuation removed (SQuAD's ASCII set and every Unicode punctuation
character; dashes and slashes become spaces), the articles a/an/the removed, whitespace collapsed.
Citation markers ("[2]") are taken out of the answer first (strip_citations).

- exact_match, token_f1: the SQuAD definitions, on the text as it is.
- key words: a gold answer's tokens without stop words (negations such as "not", "no" are kept); a gold key word is present in the answer
  when the answer holds the same token, plurals ignored ("pandas" = "panda", "phones" = "phone",
  "cities" = "city") and number words read as digits ("two" = "2", up to twenty and the tens).
- keyword_recall: the share of the gold answer's key words present in the answer.
- correct: keyword_recall >= 0.6 (issue 13's measure: at least 60% of the gold's key words).
- yes/no gold answers (first word "yes" or "no", e.g. "Yes.", "No, there are no ants ..."): for
  contains, keyword_recall and correct such a gold counts 1.0 when the answer says the same word
  and 0.0 when it says the other. The answer says "yes"/"no" when it starts with that word, or
  (given the question) when it restates the question, holding at least 75% of the question's key
  words: then with a negation ("not", "never", "doesn't", ...) it says "no", without one "yes"
  ("Most eels are predators." to "Are most eels predators?"). An answer that does neither says
  nothing; a gold with more than its yes/no ("Yes, most eels are predators.") is then scored on
  the key words after the yes/no.
"""

from __future__ import annotations

import re
import statistics
import string
import unicodedata
from collections import Counter
from collections.abc import Sequence

CORRECT_RECALL = 0.6
_NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())} | {w: str(10 * i) for i, w in enumerate(
    "thirty forty fifty sixty seventy eighty ninety".split(), start=3)}
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_POLAR = ("yes", "no")
RESTATES = 0.75
NEGATIONS = frozenset("not no never cannot cant dont doesnt didnt isnt arent wasnt werent wont neither nor none "
                      "nothing hasnt havent hadnt shouldnt wouldnt couldnt".split())
_CITATION = re.compile(r"\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]")
STOP_WORDS = frozenset("""
a an the and or but nor so of to in on at by for with from as into onto about over under between through during
is are was were be been being am do does did done has have had having can could will would shall should may might
must it its this that these those there here they them their theirs he him his she her hers we us our you your
i me my mine which who whom whose what when where why how than then also too very just only yes
some any all each both either one s
""".split())


def normalize(text: str) -> str:
    """SQuAD normalisation: lower case, no punctuation, no articles, single spaces. Punctuation is
    deleted as SQuAD does ("808,976" -> "808976", "cougar's" -> "cougars"), except dashes and
    slashes, which separate words ("French-speaking" -> "french speaking")."""
    text = "".join(_punctuation(c) for c in text.lower())
    return " ".join(_ARTICLES.sub(" ", text).split())


def _punctuation(char: str) -> str:
    category = unicodedata.category(char)
    if char in "/-" or category == "Pd":
        return " "
    return "" if char in string.punctuation or category.startswith("P") else char


def strip_citations(text: str) -> str:
    """The answer without its citation markers ("Berlin [1][2]." -> "Berlin ."): they are not content."""
    return _CITATION.sub(" ", text)


def tokens(text: str) -> list[str]:
    return normalize(text).split()


def exact_match(answer: str, golds: Sequence[str]) -> float:
    """1.0 when the normalised answer equals a normalised gold answer."""
    norm = normalize(answer)
    return max((float(norm == normalize(g)) for g in golds), default=0.0)


def token_f1(answer: str, golds: Sequence[str]) -> float:
    """SQuAD token F1 (harmonic mean of token precision and recall), best over the golds."""
    return max((_f1(tokens(answer), tokens(g)) for g in golds), default=0.0)


def _f1(pred: list[str], gold: list[str]) -> float:
    common = sum((Counter(pred) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def polarity(text: str, question: str = "") -> str | None:
    """"yes" or "no" when the text starts with that word, or restates the question (then "no" when
    it holds a negation); else None."""
    words = tokens(text)
    if words and words[0] in _POLAR:
        return words[0]
    asked = [w for w in key_words(question) if w not in NEGATIONS]
    if not words or not asked or _matched(asked, _present(words)) < RESTATES * len(asked):
        return None
    return "no" if NEGATIONS & set(words) else "yes"


def contains_gold(answer: str, golds: Sequence[str], question: str = "") -> float:
    """1.0 when a normalised gold answer occurs in the normalised answer, on word boundaries."""
    return max((_contains(answer, g, question) for g in golds), default=0.0)


def _contains(answer: str, gold: str, question: str) -> float:
    if polarity(gold):
        return _polar(answer, gold, question, lambda rest: _contains(answer, rest, question))
    needle = normalize(gold)
    return float(bool(needle) and f" {needle} " in f" {normalize(answer)} ")


def _polar(answer: str, gold: str, question: str, on_rest) -> float:
    """A yes/no gold: 1.0 for the same word, 0.0 for the other; when the answer says neither, the
    gold's words after its yes/no (if any) scored by on_rest."""
    said = polarity(answer, question)
    if said is not None:
        return float(said == polarity(gold))
    rest = " ".join(tokens(gold)[1:])
    return on_rest(rest) if rest else 0.0


def key_words(text: str) -> list[str]:
    """The content words of a text, in order, without repeats: normalised tokens minus stop words."""
    return list(dict.fromkeys(t for t in tokens(text) if t not in STOP_WORDS))


def _forms(word: str) -> frozenset[str]:
    """The forms a key word matches: itself and, for a plural, its singulars ("phones" -> "phone",
    "boxes" -> "box", "cities" -> "city", "viruses" -> "virus"); a number word as its digits ("two" -> "2")."""
    if word in _NUMBER_WORDS:
        return frozenset((_NUMBER_WORDS[word],))
    forms = {word}
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        forms.add(word[:-1])
        if len(word) > 4 and word.endswith("es"):
            forms.add(word[:-2])
        if len(word) > 4 and word.endswith("ies"):
            forms.add(word[:-3] + "y")
    return frozenset(forms)


def _matched(words, present: set[str]) -> int:
    """How many of the words have a form among the present forms."""
    return sum(1 for w in words if _forms(w) & present)


def _present(words) -> set[str]:
    return set().union(*(_forms(w) for w in words))


def keyword_recall(answer: str, golds: Sequence[str], question: str = "") -> float:
    """Share of a gold answer's key words present in the answer, best over the golds."""
    present = _present(tokens(answer))
    return max((_recall(answer, g, present, question) for g in golds), default=0.0)


def _recall(answer: str, gold: str, present: set[str], question: str) -> float:
    if polarity(gold):
        return _polar(answer, gold, question, lambda rest: _recall(answer, rest, present, question))
    wanted = key_words(gold) or list(dict.fromkeys(tokens(gold)))
    if not wanted:
        return 0.0
    return _matched(wanted, present) / len(wanted)


def is_correct(answer: str, golds: Sequence[str], question: str = "", threshold: float = CORRECT_RECALL) -> float:
    """1.0 when at least `threshold` of some gold answer's key words are in the answer."""
    return float(keyword_recall(answer, golds, question) >= threshold)


def passage_contains(passage: str, golds: Sequence[str]) -> bool:
    """A passage contains a gold answer (normalised, on word boundaries); yes/no golds never count,
    since 'yes' in a passage says nothing."""
    text = f" {normalize(passage)} "
    return any(not polarity(g) and normalize(g) and f" {normalize(g)} " in text for g in golds)


def median(values: Sequence[float]) -> float | None:
    """The median, or None for no values."""
    return statistics.median(values) if values else None


def mean(values: Sequence[float]) -> float | None:
    """The mean, or None for no values."""
    return sum(values) / len(values) if values else None
