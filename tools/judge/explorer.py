"""SQuAD 1.1 train, whole, from the SQuAD explorer's per-article pages (tools/judge/data.py's EXPLORER source).

The pages hold each paragraph of an article with its questions and their answer texts. They give two
things: SQuAD train rows (`explorer_rows`), and the paragraphs that SQuAD 2.0 train's unanswerable
questions (SQuAD2-CR's, which come without theirs) were written over (`placed_rows`): SQuAD 2.0 train has
the same paragraphs as SQuAD 1.1 train.
"""

from __future__ import annotations

import html
import math
import re
import subprocess
from pathlib import Path
from typing import Iterator

from ragchain_cli.text.words import content_words

from .data import CR_OVERLAP, DEV_TITLES, EVAL_NAMES, EXPLORER, _best_sentence, _word_index, cr_questions, show
from .pairs import _holding, _split

_PAGE_TITLE = re.compile(r'<h1 id="title">(.*?)</h1>', re.S)
_PARAGRAPH = re.compile(r'<div class="para-wrap">.*?<pre>(.*?)</pre>(.*?)(?=<div class="para-wrap">|$)', re.S)
_QA = re.compile(r'<strong class="question">(.*?)</strong>(.*?)(?=<div class="qa-wrap">|$)', re.S)
_ANSWER = re.compile(r'<span class="answer">(.*?)</span>', re.S)
EXPLORER_QUESTIONS = 1  # questions taken from each paragraph (the first ones), so SQuAD does not crowd out the rest


def explorer_paragraphs(mirror: Path) -> Iterator[tuple[str, str, str]]:
    """(title, paragraph, the HTML of its questions) of each page, but a dev or measured article's."""
    repo, commit, folder = EXPLORER
    listed = subprocess.run(["git", "--git-dir", str(mirror / repo / "repo"), "ls-tree", "-z", "--name-only",
                             commit, folder + "/"], check=True, capture_output=True).stdout.decode("utf-8")
    for path in sorted(n for n in listed.split("\0") if n.endswith(".html")):
        yield from page_paragraphs(show(mirror, EXPLORER, path), Path(path).stem)


def page_paragraphs(page: str, name: str) -> Iterator[tuple[str, str, str]]:
    """One explorer page's (title, paragraph, the HTML of its questions); none when the article is a dev
    or measured one."""
    found = _PAGE_TITLE.search(page)
    title = html.unescape(found.group(1)).strip().replace(" ", "_") if found else name
    if title in DEV_TITLES or EVAL_NAMES.search(title.replace("_", " ")):
        return
    for context, rest in _PARAGRAPH.findall(page):
        yield title, html.unescape(context), rest


def questions(context: str, rest: str) -> list[tuple[str, str, int]]:
    """A paragraph's (question, answer text, where the answer first occurs), in the page's order; none
    whose answer is not in the paragraph or that names a measured article."""
    found = []
    for question, answers in _QA.findall(rest):
        texts = [html.unescape(a).strip() for a in _ANSWER.findall(answers)]
        texts = [t for t in texts if t and t in context]
        question = html.unescape(re.sub(r"<[^>]+>", "", question)).strip()
        if texts and question and not EVAL_NAMES.search(question):
            found.append((question, texts[0], context.index(texts[0])))
    return found


def page_questions(title: str, context: str, rest: str) -> Iterator[dict]:
    for question, answer, start in questions(context, rest)[:EXPLORER_QUESTIONS]:
        yield _row(title, context, question, [answer], [start])


def _row(title: str, context: str, question: str, answers: list[str], starts: list[int], qid: str = "",
         plausible: tuple[list[str], list[int]] = ([], [])) -> dict:
    """A row as data.squad_rows writes one: answerable when it has answers."""
    return {"id": qid, "title": title, "context": context, "question": question, "answers": answers,
            "answer_starts": starts, "is_impossible": not answers, "plausible_answers": plausible[0],
            "plausible_starts": plausible[1]}


def explorer_rows(paragraphs: list[tuple[str, str, str]], skip_titles: set[str]) -> Iterator[dict]:
    """SQuAD 1.1 train's paragraphs (`explorer_paragraphs`), each with its first EXPLORER_QUESTIONS
    questions (answer_starts: where the answer text first occurs); none of a skipped article."""
    for title, context, rest in paragraphs:
        if title not in skip_titles:
            yield from page_questions(title, context, rest)


def explorer_sentences(paragraphs: list[tuple[str, str, str]]) -> list[str]:
    """Every sentence of SQuAD 1.1 train's paragraphs (but a dev or measured article's): the pool in which
    SQuAD 2.0 train's unanswerable questions find the sentence they were written from."""
    from ragchain_cli.text.sentences import sentences

    contexts = {context for _, context, _ in paragraphs}
    return [s for c in sorted(contexts) for s in sentences(c) if not EVAL_NAMES.search(s)]


def placed_rows(paragraphs: list[tuple[str, str, str]], lines: list[str], known_ids: set[str]) -> Iterator[dict]:
    """SQuAD2-CR's questions (TSV `lines`) put back in the paragraph they were written over, as SQuAD 2.0
    rows, with the answerable questions they were written beside.

    An unanswerable question goes to the paragraph of the sentence holding most of its word weight (at
    least CR_OVERLAP). Its plausible answer is that of the paragraph's answerable question with most words
    in common whose answer lies in the same sentence (its twin, written as an answerable row of the same
    paragraph): the answer the question was written to look answered by. Without a twin it has none."""
    spans = [_split(context) for _, context, _ in paragraphs]
    pool = [(k, i) for k, found in enumerate(spans) for i, span in enumerate(found) if not EVAL_NAMES.search(span[2])]
    weights, index = _word_index([spans[k][i][2] for k, i in pool])
    unseen, twins, rows, asked = math.log(max(len(pool), 1)), {}, [], {}
    for qid, question in cr_questions(lines, known_ids):
        best, share = _best_sentence(question, weights, index, unseen)
        if share < CR_OVERLAP:
            continue
        k, i = pool[best]
        (title, context, rest), mine = paragraphs[k], content_words(question)
        if k not in asked:  # a paragraph's questions, parsed once however many are placed in it
            asked[k] = questions(context, rest)
        inside = [(len(mine & content_words(q)), -n, q, a, at)
                  for n, (q, a, at) in enumerate(asked[k]) if _holding(spans[k], at) == i]
        twin = max(inside) if inside else None
        if twin and twin[2].lower() == question.lower():
            continue
        plausible = ([twin[3]], [twin[4]]) if twin else ([], [spans[k][i][0]])
        rows.append(_row(title, context, question, [], [], qid, plausible))
        if twin:
            twins[(k, twin[2])] = _row(title, context, twin[2], [twin[3]], [twin[4]])
    yield from sorted(rows + list(twins.values()), key=lambda r: (r["context"], r["question"]))
