"""Which of the judge's two bars each stage of `ask` is held to (issue 53), through AskWorkflow on the
sample corpus with a scripted model: decide and quote ask whether the documents answer the question
(judge_answers), the second reading and verify whether the reply is drawn from them (judge_supports)."""

from __future__ import annotations

import inspect

from ragchain_cli.answer import workflow as flow
from ragchain_cli.answer.assemble import open_workflow
from ragchain_cli.answer.workflow import AskOptions
from ragchain_cli.config import DEFAULTS, load_settings
from scripted import ScriptedModel

CLOSED = "When is Heron Inlet closed to sampling?"
RIGHT = "Sampling is closed from 1 April to 15 July."
WRONG = "Heron Inlet is closed from 3 May to 9 June."  # dates no passage gives: not verified, then quoted


def ask(sample_index, model: ScriptedModel, **options) -> dict:
    settings = load_settings({"index": str(sample_index)}, config_files=[])
    with open_workflow(settings, AskOptions(**options), model=model) as workflow:
        return workflow.ask(CLOSED)


def test_each_stage_is_held_to_its_own_bar(sample_index, monkeypatch):
    used: dict[str, set[float]] = {}
    for name in ("decide", "next_attempt", "verify", "quote"):
        stage = getattr(flow, name)

        def recorded(*args, _stage=stage, _name=name, **kwargs):
            used.setdefault(_name, set()).add(inspect.signature(_stage).bind(*args, **kwargs).arguments["bar"])
            return _stage(*args, **kwargs)

        monkeypatch.setattr(flow, name, recorded)
    ask(sample_index, ScriptedModel(WRONG, WRONG), judge_answers=0.21, judge_supports=0.87)
    assert used == {"decide": {0.21}, "next_attempt": {0.87}, "verify": {0.87}, "quote": {0.21}}


def test_a_reply_between_the_two_bars_is_not_verified(sample_index):
    # the reply's own support, read once, with the bar for "verified" just above it and the one for
    # "answered" just below: verified only if verify were handed the easier bar
    support = ask(sample_index, ScriptedModel(RIGHT), focus_tokens=0)["evidence"]["support"]
    payload = ask(sample_index, ScriptedModel(RIGHT), focus_tokens=0,
                  judge_answers=min(DEFAULTS.judge_answers, support - 0.01), judge_supports=support + 0.01)
    assert payload["answered"] is True and payload["supported"] is False, payload
