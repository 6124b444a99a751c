"""Rebuild the judge's training files from public repositories: `python -m tools.judge.data`.

    python -m tools.judge.data --mirror DIR --out DIR

DIR (--mirror) holds bare git clones of the repositories below, one folder each, named
`owner+name/repo` (as the project's fetch tool lays them out); every file is read at its pinned commit
with `git show`. Writes squad2_train.jsonl, squad_extra.jsonl (SQuAD train, one question a line), nli.jsonl
(SNLI dev and test pairs), nli3.jsonl (MultiNLI dev and SNLI dev
and test, three-way, for tools/judge/claims.py), boolq.jsonl, qnli.jsonl (QNLI train pairs) and squad2cr.jsonl (SQuAD 2.0
train's unanswerable questions, each with its near miss among QNLI's sentences); with --explorer also
squad_explorer.jsonl (SQuAD 1.1 train's paragraphs, each with its first question), squad2cr.jsonl's
near misses found among all of SQuAD train's sentences, and squad2cr_placed.jsonl (SQuAD2-CR's questions
in their paragraphs, with the answerable questions beside them: tools/judge/explorer.py). It logs their counts
on stderr. docs/JUDGE.md has the licences and how each source was checked; what may never be trained on
is dropped here by title.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Iterator

from ragchain_cli.text.words import content_words

SQUAD2 = ("PhongNTDo+guide_train_MRC_transformers", "631a448de42714910b179afdf83799e01ff1bfaa", "train-v2.0.json")
SQUAD11 = ("ermeba+jupiter_bert", "6bed297d8d9c6b390b287f4bfdf8271253313ff1", "train-v1.1.json")  # cut mid-file
ESNLI = ("OanaMariaCamburu+e-SNLI", "7b585a3f077fdea899780eb0473940522ae44a2e", "dataset/eSNLI/{part}.{split}")
# MultiNLI 1.0 dev (matched, mismatched) and SNLI 1.0 dev and test as CSV (pairID, sentence1, sentence2, label): the
# three-way claim judge's NLI pairs (tools/judge/claims.py); the repository's train files are not in its snapshot
MNLI = ("Tikquuss+nli_dataset", "6a11ce694e6930f5a7a26fdb95bfe71d039f6790", "Multi-genre-nli/multinli_1.0_dev_{split}.csv")
NLI3_FILES = (("mnli_dev_matched", MNLI[2].format(split="matched")), ("mnli_dev_mismatched", MNLI[2].format(split="mismatched")),
              ("snli_dev", "Stanford-nli/snli_1.0_dev.csv"), ("snli_test", "Stanford-nli/snli_1.0_test.csv"))
BOOLQ = ("dwzhu-pku+boolqQA", "a88d374e9d0b9fa6712e33a80aefdc916ba6718a", "datafile/dev.jsonl")
# GLUE QNLI train (built from SQuAD 1.1 train): the repository's train.json and dev.json are a 90/10 split of
# QNLI's train file (its src/convert_to_pretrain_tapt_1.py), the k-shot files samples of it; never its test.tsv
QNLI = ("ZhengxiangShi+PowerfulPromptFT", "b4ecdea060847115e9909b442ab4eb15bcb2a2c4", "data/glue_pretrain/QNLI/train.json")
QNLI_JSON = ("data/glue_pretrain/QNLI/train.json", "data/glue_pretrain/QNLI/dev.json")
# SQuAD2-CR (Lee et al. 2020): SQuAD 2.0 train's unanswerable questions, by id and tokenised text, without their
# paragraphs; its test split is SQuAD 2.0 dev (never read)
SQUAD2CR = ("antest1+SQuAD2-CR", "fe7a2f41c58a11770483f59142ca2eed06da758d", "rationales/word_att_gold_train.tsv")
# SQuAD 1.1 train, whole: the per-article pages the SQuAD site published for two days in August 2016 (deleted by
# the next commit, c4f8d268), each paragraph with its questions and answer texts; SQuAD 2.0 train has the same
# paragraphs, so its unanswerable questions (SQuAD2-CR's) find their sentence here
EXPLORER = ("rajpurkar+SQuAD-explorer", "13f82e35b9a1fb9173f863b35f5675030646571e", "explore/1.1/train")
CR_OVERLAP = 0.5  # share of a question's word weight a sentence of the pool must hold to be taken as its near miss
QNLI_TSV = tuple(f"data/k-shot/QNLI/16-{seed}/{split}.tsv" for seed in (13, 21, 42, 87, 100) for split in ("train", "dev"))
# QNLI has no titles: a pair that names an article of qa-cmu-dev or shared/data/squad2-dev is dropped by its words
EVAL_NAMES = re.compile(r"\b(?:" + "|".join("""Ant Antwerp Berlin Butterfly Cello Cougar Cymbal Dragonfly Drum Eel Flute
Giant.Panda Guitar Jakarta Koala Kuala.Lumpur Lobster Lyre Melbourne Montreal Nairobi Octopus Piano Saint.Petersburg
San.Francisco Taipei Trumpet Violin Xylophone Zebra Computational.complexity.theory""".split()) + r")(?:s|es)?\b", re.I)
# SQuAD's dev articles (v1.1 and v2.0 share them) and the article of shared/data/squad2-dev: never trained on
DEV_TITLES = frozenset("""Super_Bowl_50 Warsaw Normans Nikola_Tesla Computational_complexity_theory Teacher
Martin_Luther Southern_California Sky_(United_Kingdom) Victoria_(Australia) Huguenot Steam_engine Oxygen
1973_oil_crisis Apollo_program European_Union_law Amazon_rainforest Ctenophora Fresno,_California Packet_switching
Black_Death Geology Newcastle_upon_Tyne Victoria_and_Albert_Museum American_Broadcasting_Company Genghis_Khan Pharmacy
Immune_system Civil_disobedience Construction Private_school Harvard_University Jacksonville,_Florida
Economic_inequality Doctor_Who University_of_Chicago Yuan_dynasty Kenya Intergovernmental_Panel_on_Climate_Change
Chloroplast Prime_number Rhine Scottish_Parliament Islamism Imperialism United_Methodist_Church
French_and_Indian_War Force""".split())
_ID = re.compile(r"[0-9a-f]{24}")


def show(mirror: Path, source: tuple[str, str, str], path: str = "") -> str:
    repo, commit, default = source
    git_dir = mirror / repo / "repo"
    done = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path or default}"],
                          check=True, capture_output=True)
    return done.stdout.decode("utf-8")


def articles(text: str) -> list[dict]:
    """The whole article objects of a SQuAD file, stopping at one cut off (the 1.1 copy ends mid-file)."""
    at, decoder, found = text.index("[") + 1, json.JSONDecoder(), []
    while True:
        while at < len(text) and text[at] in ", \n\r\t":
            at += 1
        if at >= len(text) or text[at] == "]":
            return found
        try:
            article, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            return found
        found.append(article)


def squad_rows(found: list[dict], skip_titles: set[str]) -> Iterator[dict]:
    for article in found:
        if article["title"] in DEV_TITLES or article["title"] in skip_titles:
            continue
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                if not _ID.fullmatch(qa["id"]):
                    raise ValueError(f"not a SQuAD id: {qa['id']!r}")
                impossible = bool(qa.get("is_impossible", False))
                answers = [] if impossible else qa["answers"]
                plausible = qa.get("plausible_answers", [])
                yield {"id": qa["id"], "title": article["title"], "context": paragraph["context"],
                       "question": qa["question"], "answers": [a["text"] for a in answers],
                       "answer_starts": [a["answer_start"] for a in answers], "is_impossible": impossible,
                       "plausible_answers": [a["text"] for a in plausible],
                       "plausible_starts": [a["answer_start"] for a in plausible]}


def detokenized(text: str) -> str:
    """e-SNLI's sentences are tokenised ("a dog ."): put the punctuation back."""
    text = re.sub(r" ([.,!?;:%)\]])", r"\1", text.strip())
    text = re.sub(r"([(\[$]) ", r"\1", text)
    return re.sub(r" (n't|'s|'re|'ve|'m|'ll|'d)\b", r"\1", text)


def snli_rows(mirror: Path) -> Iterator[dict]:
    for split in ("dev", "test"):
        parts = {part: show(mirror, ESNLI, ESNLI[2].format(part=part, split=split)).splitlines()
                 for part in ("s1", "s2", "labels")}
        for premise, hypothesis, label in zip(parts["s1"], parts["s2"], parts["labels"]):
            yield {"premise": detokenized(premise), "hypothesis": detokenized(hypothesis), "label": label.strip(),
                   "source": f"snli_{split}"}


def nli3_rows(mirror: Path) -> Iterator[dict]:
    """MultiNLI dev and SNLI dev/test pairs with a gold label (three-way), once each."""
    import csv
    import io

    for source, path in NLI3_FILES:
        for row in csv.DictReader(io.StringIO(show(mirror, MNLI, path))):
            label = (row.get("label") or "").strip()
            if label in ("entailment", "neutral", "contradiction") and row["sentence1"].strip() and row["sentence2"].strip():
                yield {"premise": row["sentence1"].strip(), "hypothesis": row["sentence2"].strip(), "label": label,
                       "source": source}


def boolq_rows(mirror: Path) -> Iterator[dict]:
    for line in show(mirror, BOOLQ).splitlines():
        if line.strip():
            row = json.loads(line)
            yield {"question": row["question"], "passage": row["passage"], "answer": bool(row["answer"]),
                   "title": row["title"], "source": "boolq_dev"}


def qnli_rows(mirror: Path) -> Iterator[dict]:
    """QNLI train pairs {question, sentence, label (1: entailment)}, each once, none naming a measured article."""
    found = []
    for path in QNLI_JSON:
        rows = json.loads(show(mirror, QNLI, path))
        found += [(rows[k]["text_a"], rows[k]["text_b"], rows[k]["label"]) for k in sorted(rows, key=int)]
    for path in QNLI_TSV:
        lines = show(mirror, QNLI, path).splitlines()
        if lines[0].split("\t") != ["index", "question", "sentence", "label"]:
            raise ValueError(f"{path}: not a QNLI file")
        found += [tuple(line.split("\t")[1:4]) for line in lines[1:] if line.strip()]
    seen: set[tuple[str, str]] = set()
    for question, sentence, label in found:
        key = (question.strip(), sentence.strip())
        if key in seen or EVAL_NAMES.search(key[0]) or EVAL_NAMES.search(key[1]):
            continue
        seen.add(key)
        yield {"question": key[0], "sentence": key[1], "label": int(label == "entailment"), "source": "qnli_train"}


def squad2cr_rows(mirror: Path, sentences: list[str], known_ids: set[str]) -> Iterator[dict]:
    """SQuAD2-CR's unanswerable train questions, each with the QNLI train sentence sharing most of its
    (idf-weighted) words: SQuAD 2.0's writers made these questions from a sentence of their paragraph, so
    that sentence, when QNLI holds it, is the near miss the question was written to look answered by."""
    return unanswerable_rows(show(mirror, SQUAD2CR).splitlines()[1:], sentences, known_ids)


def unanswerable_rows(lines: list[str], sentences: list[str], known_ids: set[str]) -> Iterator[dict]:
    """SQuAD2-CR's TSV rows (qid, tokenised question, ...) paired with their near miss among `sentences`."""
    weights, index = _word_index(sentences)
    unseen = math.log(max(len(sentences), 1))  # the weight of a word no sentence holds
    for qid, question in cr_questions(lines, known_ids):
        best, share = _best_sentence(question, weights, index, unseen)
        if share >= CR_OVERLAP and not EVAL_NAMES.search(sentences[best]):
            yield {"question": question, "sentence": sentences[best], "label": 0, "source": "squad2cr_train"}


def cr_questions(lines: list[str], known_ids: set[str]) -> Iterator[tuple[str, str]]:
    """(qid, question) of SQuAD2-CR's TSV rows, detokenised; none already known or naming a measured article."""
    for line in lines:
        qid, tokens = line.split("\t")[:2]
        question = re.sub(r"(\w) - (\w)", r"\1-\2", detokenized(tokens.strip().strip('"').replace('""', '"')))
        question = re.sub(r"(?:``|''|\") (.*?) (?:''|``|\")", r'"\1"', question)
        if _ID.fullmatch(qid) and qid not in known_ids and not EVAL_NAMES.search(question):
            yield qid, question


def _word_index(sentences: list[str]) -> tuple[dict[str, float], dict[str, list[int]]]:
    index: dict[str, list[int]] = {}
    for i, sentence in enumerate(sentences):
        for word in content_words(sentence):
            index.setdefault(word, []).append(i)
    return {w: math.log(len(sentences) / len(found)) for w, found in index.items()}, index


def _best_sentence(question: str, weights: dict[str, float], index: dict[str, list[int]],
                   unseen: float) -> tuple[int, float]:
    """The sentence holding most of the question's word weight (idf; `unseen` for a word no sentence holds)."""
    words = sorted(content_words(question))  # one order of addition: the same sums in every process
    total = sum(weights.get(w, unseen) for w in words) or 1.0
    scores: Counter = Counter()
    for word in (w for w in words if w in weights):
        for i in index[word]:
            scores[i] += weights[word]
    if not scores:
        return 0, 0.0
    best, score = min(scores.items(), key=lambda item: (-item[1], item[0]))
    return best, score / total


def write(path: Path, rows: Iterator[dict]) -> int:
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.judge.data", description=__doc__.split("\n")[0])
    parser.add_argument("--mirror", required=True, help="folder of bare git clones, owner+name/repo")
    parser.add_argument("--out", required=True)
    parser.add_argument("--explorer", action="store_true",
                        help="also read SQuAD 1.1 train's explorer pages: squad_explorer.jsonl, SQuAD2-CR's "
                             "questions paired among all of SQuAD train's sentences, not QNLI's alone, and "
                             "squad2cr_placed.jsonl (the shipped weights were built without it; docs/JUDGE.md)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    mirror, out = Path(args.mirror), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    first = articles(show(mirror, SQUAD2))
    counts = Counter(squad2_train=write(out / "squad2_train.jsonl", squad_rows(first, set())))
    extra = articles(show(mirror, SQUAD11))
    counts["squad_extra"] = write(out / "squad_extra.jsonl", squad_rows(extra, {a["title"] for a in first}))
    counts["nli"] = write(out / "nli.jsonl", snli_rows(mirror))
    counts["boolq"] = write(out / "boolq.jsonl", boolq_rows(mirror))
    counts["nli3"] = write(out / "nli3.jsonl", nli3_rows(mirror))
    qnli = list(qnli_rows(mirror))
    counts["qnli"] = write(out / "qnli.jsonl", iter(qnli))
    pool = {r["sentence"] for r in qnli}
    known = {row["id"] for row in squad_rows(first, set())}
    if args.explorer:
        from .explorer import explorer_paragraphs, explorer_rows, explorer_sentences, placed_rows

        taken = {a["title"] for a in first + extra}
        paragraphs = list(explorer_paragraphs(mirror))  # the 441 pages, read once
        counts["squad_explorer"] = write(out / "squad_explorer.jsonl", explorer_rows(paragraphs, taken))
        pool |= set(explorer_sentences(paragraphs))
        counts["squad2cr_placed"] = write(out / "squad2cr_placed.jsonl", placed_rows(
            [p for p in paragraphs if p[0] not in taken], show(mirror, SQUAD2CR).splitlines()[1:], known))
    counts["squad2cr"] = write(out / "squad2cr.jsonl", squad2cr_rows(mirror, sorted(pool), known))
    logging.getLogger("ragchain.judge").info(json.dumps(counts))


if __name__ == "__main__":
    main()
