"""Answer-quality measures as small pure functions: one predicted answer against its gold answers.

Plain, documented measures only; nothing here reads what an answer means (no restatement or
negation reading, no plural or number-word matching). Every measure takes the predicted text and
the gold answers and returns the best value over the gold answers (a question may have several
annotators' answers).

- normalize, tokens: the official SQuAD v2.0 evaluation script's `normalize_answer` and
  `get_tokens`: lower case; every character of Python's `string.punctuation` deleted ("808,976" ->
  "808976", "French-speaking" -> "frenchspeaking"); the words a/an/the replaced by a space;
  whitespace collapsed. Nothing else (other Unicode punctuation, such as curly quotes, stays).
- exact_match, token_f1: the official script's `compute_exact` and `compute_f1`, best over the
  golds. As there, golds that normalise to nothing are dropped, and no gold at all stands for the
  no-answer gold "": then the empty answer scores 1 and any other 0 (SQuAD v2's convention; F1 is
  likewise 1 when both token lists are empty and 0 when only one is).
- key words: a gold answer's normalised tokens, in order without repeats, minus STOP_WORDS (the
  scorer's own fixed list of English function words; negations, "yes" and numbers are not in it).
  A gold made only of stop words keeps all its tokens.
- keyword_recall: the share of a gold answer's key words that occur among the answer's tokens
  (same token after normalisation), best over the golds.
- contains_gold: 1.0 when a normalised gold occurs in the normalised answer on word boundaries.
- correct: keyword_recall >= CORRECT_RECALL (0.6: at least 60% of some gold's key words).
- yes/no golds (first normalised token "yes" or "no", e.g. "Yes.", "No, there are none."): for
  keyword_recall, contains_gold and correct, an answer whose first token is "yes" or "no" scores
  1.0 when it is the gold's word and 0.0 when it is the other; any other answer is scored by the
  plain measure against the whole gold. exact_match and token_f1 stay exactly SQuAD's.
Citation markers ("[2]", "[1, 3]"; text.words.MARKER, the answer path's own) are taken out of the
answer before scoring (strip_citations).

The tokens and STOP_WORDS here are the one exception to the package's shared tokenizer and stop
list (text/words.py): they define the published measures (SQuAD's official normalisation for exact
match and F1; key words for `correct`) and stay fixed, so that a score means the same in every
session's results.
"""

from __future__ import annotations

import re
import statistics
import string
from collections import Counter
from collections.abc import Sequence

from ..text.words import MARKER

CORRECT_RECALL = 0.6
POLAR = ("yes", "no")
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCTUATION = frozenset(string.punctuation)
STOP_WORDS = frozenset("""
a an the and or but so if of to in on at by for with from as into onto about over under between through during
is are was were be been being am do does did done has have had having can could will would shall should may might
must it its this that these those there here they them their theirs he him his she her hers we us our you your
i me my mine which who whom whose what when where why how than then also too very just only
""".split())


def normalize(text: str) -> str:
    """SQuAD v2.0's normalize_answer: lower, delete string.punctuation, articles to spaces, one space."""
    text = "".join(c for c in text.lower() if c not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def tokens(text: str) -> list[str]:
    """SQuAD v2.0's get_tokens: the normalised text split on whitespace."""
    return normalize(text).split() if text else []


def strip_citations(text: str) -> str:
    """The answer without its citation markers ("Berlin [1][2]." -> "Berlin ."): they are not content."""
    return MARKER.sub(" ", text)


def _squad_golds(golds: Sequence[str]) -> list[str]:
    """SQuAD's gold list: golds that normalise to nothing dropped; none left stands for no answer ("")."""
    return [g for g in golds if normalize(g)] or [""]


def exact_match(answer: str, golds: Sequence[str]) -> float:
    """1.0 when the normalised answer equals a normalised gold answer (SQuAD v2.0 compute_exact)."""
    norm = normalize(answer)
    return max(float(norm == normalize(g)) for g in _squad_golds(golds))


def token_f1(answer: str, golds: Sequence[str]) -> float:
    """SQuAD v2.0 token F1 (compute_f1), best over the golds."""
    pred = tokens(answer)
    return max(_f1(pred, tokens(g)) for g in _squad_golds(golds))


def _f1(pred: list[str], gold: list[str]) -> float:
    if not pred or not gold:  # a no-answer on either side: 1 when both are, else 0
        return float(pred == gold)
    common = sum((Counter(pred) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def polar_word(text: str) -> str | None:
    """"yes" or "no" when that is the text's first normalised token, else None."""
    words = tokens(text)
    return words[0] if words and words[0] in POLAR else None


def _polar_verdict(answer: str, gold: str) -> float | None:
    """A yes/no gold and an answer that starts with yes or no: 1.0 for the same word, 0.0 for the other;
    None when either does not start with one (then the plain measure applies)."""
    wanted, said = polar_word(gold), polar_word(answer)
    if wanted is None or said is None:
        return None
    return float(said == wanted)


def contains_gold(answer: str, golds: Sequence[str]) -> float:
    """1.0 when a normalised gold answer occurs in the normalised answer, on word boundaries."""
    return max((_contains(answer, g) for g in golds), default=0.0)


def _contains(answer: str, gold: str) -> float:
    verdict = _polar_verdict(answer, gold)
    if verdict is not None:
        return verdict
    needle = normalize(gold)
    return float(bool(needle) and f" {needle} " in f" {normalize(answer)} ")


def key_words(text: str) -> list[str]:
    """The content words of a text, in order, without repeats: normalised tokens minus STOP_WORDS
    (all its tokens when it has nothing else)."""
    words = list(dict.fromkeys(tokens(text)))
    return [w for w in words if w not in STOP_WORDS] or words


def keyword_recall(answer: str, golds: Sequence[str]) -> float:
    """Share of a gold answer's key words among the answer's tokens, best over the golds."""
    present = set(tokens(answer))
    return max((_recall(answer, g, present) for g in golds), default=0.0)


def _recall(answer: str, gold: str, present: set[str]) -> float:
    verdict = _polar_verdict(answer, gold)
    if verdict is not None:
        return verdict
    wanted = key_words(gold)
    return sum(1 for w in wanted if w in present) / len(wanted) if wanted else 0.0


def is_correct(answer: str, golds: Sequence[str], threshold: float = CORRECT_RECALL) -> float:
    """1.0 when at least `threshold` of some gold answer's key words are in the answer."""
    return float(keyword_recall(answer, golds) >= threshold)


def passage_contains(passage: str, golds: Sequence[str]) -> bool:
    """A passage contains a gold answer (normalised, on word boundaries); yes/no golds never count,
    since 'yes' in a passage says nothing."""
    text = f" {normalize(passage)} "
    return any(not polar_word(g) and normalize(g) and f" {normalize(g)} " in text for g in golds)


def median(values: Sequence[float]) -> float | None:
    """The median, or None for no values."""
    return statistics.median(values) if values else None


def mean(values: Sequence[float]) -> float | None:
    """The mean, or None for no values."""
    return sum(values) / len(values) if values else None
