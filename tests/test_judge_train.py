"""The judge's training script runs end to end on a few invented examples: pairs, a few steps, the
ONNX export, int8 quantisation and the manifest that pins the result (tools/judge/train.py)."""

from __future__ import annotations

import json

import pytest

from ragchain_cli.judge.model import OnnxJudge, manifest
from tools.judge.train import main, pins_line

PARAGRAPH = ("The Orrin Bridge was opened in 1911 by the county council. It carries the coast road over the "
             "Tamsy estuary. A toll of one penny was charged until 1950, when the county bought out the company.")


def squad_rows() -> list[dict]:
    def row(n, question, answer, impossible=False):
        start = PARAGRAPH.find(answer) if answer else -1
        return {"id": f"{n:024x}", "title": f"Orrin_Bridge_{n % 3}", "context": PARAGRAPH, "question": question,
                "answers": [] if impossible else [answer], "answer_starts": [] if impossible else [start],
                "is_impossible": impossible, "plausible_answers": [answer] if impossible else [],
                "plausible_starts": [start] if impossible else []}

    return [row(1, "When was the Orrin Bridge opened?", "1911"), row(2, "What does the bridge carry?", "the coast road"),
            row(3, "Until when was a toll charged?", "1950"), row(4, "Who bought out the company in 1950?", "the county"),
            row(5, "When was the Orrin Tunnel opened?", "1911", impossible=True)] * 3


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    folder = tmp_path_factory.mktemp("judge")
    squad, nli = folder / "squad.jsonl", folder / "nli.jsonl"
    squad.write_text("".join(json.dumps(r) + "\n" for r in squad_rows()), encoding="utf-8")
    nli.write_text("".join(json.dumps({"premise": "A man rides a red bicycle.", "hypothesis": h, "label": y}) + "\n"
                           for h, y in [("A man rides a bike.", "entailment"), ("A woman swims.", "contradiction")] * 4),
                   encoding="utf-8")
    reworded = folder / "reworded.jsonl"
    rows = [{**r, "question": q, "reworded_from": r["question"]} for r, q in
            zip(squad_rows()[:2], ["In what year did traffic first cross the Orrin?", "Which route runs over it?"])]
    reworded.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    main(["--squad", str(squad), "--nli", str(nli), "--reworded", str(reworded), "--out", str(folder / "out"),
          "--examples", "40", "--batch", "8", "--max-length", "48", "--log-every", "1"])
    return folder / "out"


def test_training_writes_a_pinned_int8_model(trained):
    assert manifest(trained)["size"] == (trained / "judge-int8.onnx").stat().st_size


def test_the_script_gives_the_pins_that_shipping_the_weights_needs_in_code(trained):
    record = manifest(trained)
    assert f"'judge-int8.onnx': Pin({record['size']}, '{record['sha256']}')" in pins_line(trained)


def test_the_trained_model_scores_pairs_as_probabilities(trained):
    scores = OnnxJudge(trained).score([("When was the bridge opened?", "The bridge was opened in 1911."),
                                       ("Who rides?", "A man rides a bicycle.")])
    assert len(scores) == 2 and all(0.0 <= s <= 1.0 for s in scores)


def test_the_manifest_counts_the_reworded_questions_trained_on_and_held_out(trained):
    data = manifest(trained)["data"]
    assert (data["reworded_questions"], data["reworded_held_out"]) == (1, 1)
