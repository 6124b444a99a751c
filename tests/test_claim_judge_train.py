"""The claim judge's training script runs end to end on a few invented examples, stops and goes on
from its checkpoint, and writes an int8 model its manifest pins (tools/judge/claims.py); its pairs
label a neighbouring number of the answer's sentence as contradicted (tools/judge/claim_pairs.py)."""

from __future__ import annotations

import json
import random

import pytest

from ragchain_cli.judge.claims import CONTRADICTS, ENTAILS, NEITHER, MODEL_FILE, OnnxClaimJudge, manifest
from tools.judge.claim_pairs import neighbour, squad_claims
from tools.judge.claims import main

from test_judge_train import squad_rows


def files(folder):
    squad, nli, boolq = folder / "squad.jsonl", folder / "nli.jsonl", folder / "boolq.jsonl"
    squad.write_text("".join(json.dumps(r) + "\n" for r in squad_rows()), encoding="utf-8")
    nli.write_text("".join(json.dumps({"premise": "A man rides a red bicycle.", "hypothesis": h, "label": y}) + "\n"
                           for h, y in [("A man rides a bike.", "entailment"), ("A woman swims.", "contradiction"),
                                        ("The man is late.", "neutral")] * 4), encoding="utf-8")
    boolq.write_text(json.dumps({"question": "is the bridge older than the tunnel", "answer": True, "title": "Orrin Bridge",
                                 "passage": "The bridge opened in 1911; the tunnel in 1960."}) + "\n", encoding="utf-8")
    return ["--squad", str(squad), "--nli3", str(nli), "--boolq", str(boolq)]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    folder = tmp_path_factory.mktemp("claims")
    common = files(folder) + ["--out", str(folder / "out"), "--checkpoint", str(folder / "ck"), "--examples", "40",
                              "--batch", "8", "--max-length", "48", "--save-every", "2"]
    main(common + ["--max-minutes", "0"])  # stops after its first step, with a checkpoint
    stopped = not (folder / "out" / MODEL_FILE).exists() and (folder / "ck" / "checkpoint.pt").is_file()
    main(common)
    return folder / "out", stopped


def test_a_run_stopped_by_its_time_limit_leaves_a_checkpoint_and_no_model(trained):
    assert trained[1]


def test_the_rerun_goes_on_to_a_model_its_manifest_pins(trained):
    out = trained[0]
    assert manifest(out)["size"] == (out / MODEL_FILE).stat().st_size


def test_the_trained_model_reads_three_probabilities_that_sum_to_one(trained):
    (reading,) = OnnxClaimJudge(trained[0]).read([("A man rides a bike.", "A man rides a red bicycle.")])
    assert abs(reading.entails + reading.neither + reading.contradicts - 1.0) < 1e-6


def test_a_neighbouring_number_of_the_same_sentence_is_taken_for_a_numeric_answer():
    sentence = "The heater starts below 5 degrees and stops at 9 degrees."
    assert neighbour("5", sentence, "When does the heater start?", random.Random(1)) == "9"


def test_the_squad_pairs_entail_the_gold_answer_and_contradict_its_neighbour():
    claims = list(squad_claims(squad_rows()[:5], random.Random(3)))
    opened = [c for c in claims if c.text.startswith("When was the Orrin Bridge opened? Answer:")]
    labels = {c.text.split("Answer: ")[1]: c.label for c in opened if "opened in 1911" in c.sentence}
    assert labels.get("1911") == ENTAILS and CONTRADICTS in labels.values()


def test_an_unanswerable_questions_plausible_answer_is_neither():
    claims = list(squad_claims(squad_rows()[:5], random.Random(3)))
    assert [c.label for c in claims if c.text.startswith("When was the Orrin Tunnel")] == [NEITHER]


def tiny_mpnet(folder):
    """A tiny MPNet of random weights with the bundled tokenizer: what stands in for all-mpnet-base-v2."""
    import shutil

    from transformers import MPNetConfig, MPNetForMaskedLM

    from ragchain_cli.stores.embedders import model_folder

    base = folder / "mpnet"
    MPNetForMaskedLM(MPNetConfig(vocab_size=30527, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                 intermediate_size=64)).save_pretrained(base)
    shutil.copy(model_folder("all-MiniLM-L6-v2") / "tokenizer.json", base / "tokenizer.json")
    return base


def test_a_base_that_takes_no_token_type_ids_trains_and_exports_without_them(tmp_path):
    """A larger verify judge starts from MPNet (issue 52), whose forward takes no token_type_ids: a tiny
    MPNet of random weights stands in for it, trained under bfloat16 autocast."""
    main(files(tmp_path) + ["--base", str(tiny_mpnet(tmp_path)), "--bf16", "--out", str(tmp_path / "out"),
                            "--examples", "16", "--batch", "8", "--max-length", "48", "--int8-agreement", "0"])
    assert OnnxClaimJudge(tmp_path / "out").encoder.inputs == {"input_ids", "attention_mask"}


def test_8bit_weights_are_exported_as_blocks_the_judge_runs(tmp_path):
    """--weights-8bit: the MatMuls as onnxruntime's MatMulNBits (activations stay float32), read by the judge."""
    import onnx

    main(files(tmp_path) + ["--base", str(tiny_mpnet(tmp_path)), "--out", str(tmp_path / "out"), "--examples", "16",
                            "--batch", "8", "--max-length", "48", "--weights-8bit"])
    graph = onnx.load(str(tmp_path / "out" / MODEL_FILE)).graph
    assert "MatMulNBits" in {node.op_type for node in graph.node}


def test_a_folder_holding_another_encoders_tokenizer_is_refused_before_training(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "tokenizer.json").write_text('{"another": "encoder"}', encoding="utf-8")
    with pytest.raises(SystemExit, match="another encoder's tokenizer"):
        main(files(tmp_path) + ["--out", str(out), "--examples", "16", "--batch", "8", "--max-length", "48"])
