"""The shipped claim judge: pinned in code, offline, and reading entailment from contradiction in
invented sentences (judge/claims.py)."""

from __future__ import annotations

import hashlib
import shutil

import pytest

from ragchain_cli.errors import ModelNotFound
from ragchain_cli.judge import claims
from ragchain_cli.judge.claims import MODEL_FILE, PINNED, OnnxClaimJudge, load_claim_judge
from ragchain_cli.judge.model import WEIGHTS, asked, passage


def test_the_pin_in_code_equals_the_shipped_model_file():
    """Weights retrained with tools/judge/claims.py fail here until PINNED in judge/claims.py is
    updated (the script logs the new pin)."""
    data = (WEIGHTS / MODEL_FILE).read_bytes()
    assert (len(data), hashlib.sha256(data).hexdigest()) == (PINNED[MODEL_FILE].size, PINNED[MODEL_FILE].sha256)


def test_a_substituted_model_file_where_the_judge_loads_is_refused(tmp_path, monkeypatch):
    copy = tmp_path / "weights"
    shutil.copytree(WEIGHTS, copy)
    data = bytearray((copy / MODEL_FILE).read_bytes())
    data[len(data) // 2] ^= 0x01
    (copy / MODEL_FILE).write_bytes(bytes(data))
    monkeypatch.setattr(claims, "WEIGHTS", copy)  # where the loader looks for the shipped judge
    with pytest.raises(ModelNotFound, match=f"{MODEL_FILE}.*expected {PINNED[MODEL_FILE].sha256}"):
        OnnxClaimJudge(copy)


HOURS = passage("Reading room", "On Saturdays the reading room opens at 10:00 and closes at 16:00.")


def test_the_answer_the_sentence_gives_is_entailed():
    (said,) = load_claim_judge().read([(asked("When does the reading room close on Saturdays?", "16:00"), HOURS)])
    assert said.label == "entails"


@pytest.mark.xfail(strict=True, reason="the claim judge reads the words the sentence shares with the answer, not "
                   "which phrase a number belongs to: a neighbour's time is entailed too (docs/JUDGE.md)")
def test_the_time_of_the_phrase_beside_the_answer_is_not_entailed():
    (said,) = load_claim_judge().read([(asked("When does the reading room close on Saturdays?", "10:00"), HOURS)])
    assert said.label != "entails"


def test_a_claim_reworded_from_the_sentence_is_entailed():
    rule = passage("Museum rules", "Dogs must not be brought into the galleries, except assistance dogs.")
    (said,) = load_claim_judge().read([("Visitors cannot take their pet dogs into the galleries.", rule)])
    assert said.label == "entails"


def test_a_claim_the_sentence_rules_out_is_contradicted():
    ferry = passage("Ferry", "The last ferry leaves the island at 18:00 every day.")
    (said,) = load_claim_judge().read([("There is no ferry from the island.", ferry)])
    assert said.label == "contradicts"


@pytest.mark.xfail(strict=True, reason="a rule's 'must not' against a claim that something may be done: the claim "
                   "judge reads neither, not a contradiction (docs/JUDGE.md, where it is weak)")
def test_a_claim_the_sentence_denies_is_contradicted():
    rule = passage("Museum rules", "Dogs must not be brought into the galleries, except assistance dogs.")
    (said,) = load_claim_judge().read([("Visitors may bring their pet dogs into the galleries.", rule)])
    assert said.label == "contradicts"
