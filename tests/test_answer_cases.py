"""The answer case table (tests/cases/answers.yaml): written for the purpose, drawn from no QA set.

Each case gives a question, the passages the answer side read, and the draft a model replied
(null: the model should not even be asked). The case runs through `ask`'s own workflow (AskWorkflow,
with the Settings' options and the shipped judge): its search gives the case's passages, and a
scripted model replies the case's draft each time it is asked (tests/scripted.py). No answer model and no
index: the signals that would come from the index are computed from the case's own passages (the
bundled query encoder for the cosines; BM25 and document frequencies from a background collection in
which an English word is common and any other word as rare as the case's passages make it), so a word the passages lack is a rare word, as in a real
collection that does not hold it.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from ragchain_cli.answer.gather import Searched
from ragchain_cli.answer.workflow import AskOptions, AskWorkflow
from ragchain_cli.judge.model import load_judge
from ragchain_cli.text.polar import is_polar, said_side
from ragchain_cli.text.words import TermStats, is_content, stem, stems_of, tokens
from ragchain_cli.types import Chunk, Hit
from scripted import ScriptedModel

BACKGROUND = 10_000
HERE = Path(__file__).parent / "cases"
CASES = yaml.safe_load((HERE / "answers.yaml").read_text(encoding="utf-8"))
GAPS = {line.strip() for line in (HERE / "known_gaps.txt").read_text().splitlines() if line.strip()[:1].isalnum()}


def _marks(case_id: str) -> list:
    if case_id in GAPS:
        return [pytest.mark.xfail(strict=True, reason="a known gap of the answer verdicts (tests/cases/known_gaps.txt)")]
    return []


PARAMS = [pytest.param(c, id=c["id"], marks=_marks(c["id"])) for c in CASES]


@pytest.fixture(scope="module")
def encoder():
    from ragchain_cli.stores.embedders import load_query_encoder

    return load_query_encoder()


def bm25(question: str, texts: list[str], stats: TermStats) -> list[float]:
    """Okapi BM25 (k1 1.2, b 0.75, passage length 100 words on average) with the background IDF."""
    words = {stem(t): t.lower() for t in tokens(question) if is_content(t)}
    idf = stats.idf(list(words.values()))
    scores = []
    for text in texts:
        counts, length = Counter(stem(t) for t in tokens(text)), len(tokens(text))
        scores.append(sum(idf[w] * counts[s] * 2.2 / (counts[s] + 1.2 * (0.25 + 0.75 * length / 100))
                          for s, w in words.items()))
    return scores


def hits_of(case: dict, encoder, stats: TermStats) -> list[Hit]:
    texts = [p["text"] for p in case["passages"]]
    cosines = encoder.embed(texts) @ encoder.embed([case["question"]])[0] if texts else []
    bm25_ = bm25(case["question"], texts, stats)
    hits = []
    for i, passage in enumerate(case["passages"]):
        chunk = Chunk(chunk_id=f"c{i}", doc_id=passage["source"], text=passage["text"], source=passage["source"])
        explain = {"dense": (i + 1, float(cosines[i])), "bm25": (i + 1, float(bm25_[i]))}
        hits.append(Hit(chunk_id=chunk.chunk_id, score=1.0 / (i + 1), doc_id=chunk.doc_id, explain=explain, chunk=chunk))
    return hits


@pytest.fixture(scope="module")
def english():
    from ragchain_cli.stores.embedders import DEFAULT_MODEL, vocabulary

    return vocabulary(DEFAULT_MODEL)


def stats_of(case: dict, english: frozenset[str]) -> TermStats:
    """Document frequencies of a collection of BACKGROUND chunks that holds the case's passages: an
    English word (the bundled embedder's vocabulary) is common there, any other word is as rare as
    the case's passages make it."""
    held = [stems_of(p["text"]) for p in case["passages"]]
    return TermStats(total=BACKGROUND, doc_freq=lambda words: {
        w: BACKGROUND // 10 if w.lower() in english else sum(stem(w) in h for h in held) for w in words})


@pytest.fixture(scope="module")
def judge():
    return load_judge()


def run(case: dict, encoder, english, judge) -> dict:
    """The case's payload from `ask`'s workflow as it runs by default (AskOptions: the Settings' passages,
    readings, verdicts and bars): the model replies the case's draft each time (a null draft: it declines).
    A question decide refuses is a refusal here: the closest sentence that `ask` quotes for one near its
    passages (quote_closest, answer/quote.py) is not a verdict on a draft (tests/test_ask_closest.py)."""
    stats = stats_of(case, english)
    hits = hits_of(case, encoder, stats)
    model = ScriptedModel(*[case["draft"] or ""] * 2)
    options = AskOptions(quote_closest=False)
    workflow = AskWorkflow(lambda q: Searched(hits, q), stats, encoder, lambda: model, options, judge=judge)
    return workflow.ask(case["question"])


def outcome(payload: dict) -> tuple[str, str, str]:
    """(verdict, the text shown as the model's answer, why it is not verified). A reply not verified may
    give way to the passage's own sentence (answer/quote.py): the case judges the reply, kept as "draft"."""
    got = "refused" if not payload["answered"] else "verified" if payload["supported"] else "not_verified"
    if payload.get("quoted"):
        return got, payload["draft"], payload["draft_not_verified"]
    return got, payload["answer"], payload.get("not_verified") or ""


def test_every_known_gap_names_a_case():
    assert GAPS <= {c["id"] for c in CASES}


@pytest.mark.parametrize("case", PARAMS)
def test_case(case, encoder, english, judge):
    payload = run(case, encoder, english, judge)
    expect = case["expect"]
    got, shown, reason = outcome(payload)
    detail = f"{case['id']}: got {got} {shown!r} reason={reason!r} " \
             f"evidence={(payload['evidence'] or {}).get('probability')}; {case.get('why', '')}"
    allowed = expect["verdict"] if isinstance(expect["verdict"], list) else [expect["verdict"]]
    assert got in allowed, detail
    if got == "refused":
        return
    if expect.get("side") and is_polar(case["question"]) and said_side(shown) is not None:  # as the model wrote it
        assert said_side(shown) == expect["side"], detail
    if expect.get("reason"):
        assert expect["reason"].lower() in reason.lower(), detail
    for text in expect.get("shown_contains") or []:
        assert text.lower() in shown.lower(), detail
    if expect.get("shown_starts"):
        assert shown.startswith(expect["shown_starts"]), detail
    for text in expect.get("shown_excludes") or []:
        assert text.lower() not in shown.lower(), detail
