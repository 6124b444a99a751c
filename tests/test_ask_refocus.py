"""The second, focused reading of an answer that is not drawn from the sentence best matching the
question, with the real bundled SmolLM2 GGUF through llama.cpp on the sample corpus."""

from __future__ import annotations

from ragchain_cli.config import load_settings
from ragchain_cli.generate.support import drawn_from
from ragchain_cli.generate.workflow import DRAWN_FROM_BEST, AskOptions, open_workflow
from ragchain_cli.types import Answer

QUESTION = "When is Heron Inlet closed to sampling?"


def test_an_answer_not_drawn_from_the_best_sentence_is_read_again_on_that_sentence(sample_index):
    settings = load_settings({"index": str(sample_index), "llm": "smollm2-135m-instruct"}, config_files=[])
    with open_workflow(settings, AskOptions(max_tokens=48)) as workflow:
        _, found = workflow.retrieval_signals(QUESTION, workflow.pipeline.search(QUESTION))
        packed = workflow._context(QUESTION, found)
        best = found.best()
        assert best.startswith("Heron Inlet is closed to all sampling from 1 April to 15 July"), best

        drawn = Answer(QUESTION, "It is closed from 1 April to 15 July [1].", [], packed, {"generate": 0.5})
        kept, read = workflow._refocused(QUESTION, drawn, packed, found)
        assert kept is drawn and read is packed and kept.timings["generate"] == 0.5  # no second reading

        neighbour = Answer(QUESTION, "Stay 200 metres from the nest tree [1].", [], packed, {"generate": 0.5})
        before = drawn_from(neighbour.text, QUESTION, best)
        assert before < DRAWN_FROM_BEST
        answer, read = workflow._refocused(QUESTION, neighbour, packed, found)
        assert answer.timings["generate"] > 0.5  # the second reading's time is counted either way
        if answer is neighbour:  # the second answer was no better drawn: the first stays, with its passages
            assert read is packed
        else:  # kept only when more of it comes from the best sentence, cited against what it read
            assert drawn_from(answer.text, QUESTION, best) > before, answer.text
            assert any(best in h.chunk.text for h in read), read
            assert sum(len(h.chunk.text) for h in read) < sum(len(h.chunk.text) for h in packed)
            assert {c.chunk_id for c in answer.citations} <= {h.chunk_id for h in read}
