"""The judges' held-out split, by article (issue 53): what is evaluated is never trained on, nor near it.

A fifth of the SQuAD articles, chosen by a hash of the title fixed before training (`held_out`), are
held out whole. Every other source is then filtered by `Split.touches`: a QNLI or SQuAD2-CR pair (QNLI
is built from SQuAD 1.1 train's paragraphs, SQuAD2-CR from SQuAD 2.0 train's) whose sentence lies in a
held-out paragraph, whose question is a held-out question, or that names a held-out article, is dropped;
so is any pair naming an evaluation article (data.py's EVAL_NAMES: qa-cmu-dev, shared/data/squad2-dev), and a
BoolQ row whose title is one of those or a SQuAD dev article (DEV_TITLES). NLI pairs are held
out by premise (SNLI gives each premise three hypotheses: a premise is trained on or evaluated, never
both), BoolQ rows by title.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from .data import DEV_TITLES, EVAL_NAMES
from .pairs import read_jsonl

ARTICLES = 0.2  # share of SQuAD articles held out, by a hash of the title
PREMISES = 0.05  # share of NLI premises held out
BOOLQ_TITLES = 0.1  # share of BoolQ titles held out
_SPACES = re.compile(r"\s+")


def held_out(key: str, share: float) -> bool:
    """Whether `key` falls in the held-out `share` (a hash of it: the same in every run and process)."""
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:8], 16) / 0xFFFFFFFF < share


def normal(text: str) -> str:
    return _SPACES.sub(" ", text).strip().lower()


def title_words(title: str) -> str:
    """An article's title as it is written in text: "Spectre_(2015_film)" -> "Spectre"."""
    return re.sub(r"\s*\(.*?\)", "", title.replace("_", " ")).strip()


@dataclass(frozen=True)
class Split:
    titles: frozenset[str]  # the held-out SQuAD articles
    paragraphs: str  # their paragraphs, normalised, one a line
    questions: frozenset[str]  # their questions, normalised
    names: re.Pattern  # their titles, as words

    @classmethod
    def of(cls, rows: list[dict]) -> "Split":
        """The split of SQuAD rows (one question a row, with its title): the held-out articles' rows give it."""
        titles = frozenset(r["title"] for r in rows if held_out(r["title"], ARTICLES))
        kept = [r for r in rows if r["title"] in titles]
        spelled = sorted({re.escape(title_words(t)) for t in titles})
        names = re.compile(r"\b(?:" + "|".join(spelled) + r")\b", re.I) if spelled else re.compile(r"(?!)")
        return cls(titles, "\n".join(sorted({normal(r["context"]) for r in kept})),
                   frozenset(normal(r["question"]) for r in kept), names)

    def touches(self, *texts: str) -> bool:
        """Whether any text lies in a held-out paragraph, is a held-out question, or names a held-out or
        evaluation article."""
        for text in texts:
            norm = normal(text)
            if norm in self.questions or self.names.search(text) or EVAL_NAMES.search(text):
                return True
            if len(norm) >= 20 and norm in self.paragraphs:
                return True
        return False

    def touches_title(self, title: str) -> bool:
        """Whether a row's article title is a held-out, SQuAD dev or evaluation article."""
        return (title.replace(" ", "_") in self.titles | DEV_TITLES or bool(EVAL_NAMES.search(title))
                or bool(self.names.search(title)))

    def nli_rows(self, paths: list[str]) -> list[dict]:
        """The NLI files' rows {premise, hypothesis, label} that touch no held-out or evaluation article."""
        return [r for path in paths for r in read_jsonl(Path(path)) if not self.touches(r["premise"], r["hypothesis"])]

    def boolq_rows(self, paths: list[str]) -> list[dict]:
        """The BoolQ files' rows whose title and texts touch no held-out or evaluation article."""
        return [r for path in paths for r in read_jsonl(Path(path))
                if not self.touches_title(r["title"]) and not self.touches(r["question"], r["passage"])]


def partition(rows: list[dict], key: str, share: float) -> tuple[list[dict], list[dict]]:
    """The rows trained on and the rows held out, by a hash of each row's `key` field."""
    return [r for r in rows if not held_out(r[key], share)], [r for r in rows if held_out(r[key], share)]
