"""monot5: a T5 seq2seq reranker (Nogueira et al.) from a local folder (--reranker-model).

The encoder reads "Query: {q} Document: {d} Relevant:"; the decoder takes one step from its
start token, and the score is log softmax over the two logits of the "true" and "false" tokens,
taken at "true" (log P(true) among {true, false}). The token words are options (mT5 variants
use "yes"/"no"); each must be a single token of the model's vocabulary.
"""

from __future__ import annotations

from ..errors import ModelNotFound
from ..loaded import load_once
from ..types import Hit
from ._common import import_transformers, passage_text, reranked, reranker_folder, torch_threads

TEMPLATE = "Query: {query} Document: {document} Relevant:"


def _load(folder: str):
    transformers = import_transformers()
    torch_threads()
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(folder, local_files_only=True)
    model.eval()
    return tokenizer, model


def single_token(tokenizer, word: str, folder: str) -> int:
    ids = tokenizer(word, add_special_tokens=False)["input_ids"]
    if len(ids) != 1 or ids[0] == tokenizer.unk_token_id:
        raise ModelNotFound(f"{folder}: {word!r} is not a single token of this tokenizer, so it is not a "
                            "MonoT5 model", "pass --reranker-model PATH to a MonoT5 folder")
    return int(ids[0])


class MonoT5Reranker:
    name = "monot5"

    def __init__(self, model: str = "", batch_size: int = 8, max_length: int = 512,
                 true_token: str = "true", false_token: str = "false", **_options) -> None:
        folder = reranker_folder(model, self.name)
        self.tokenizer, self.model = load_once(("monot5", str(folder.resolve())), lambda: _load(str(folder)))
        self.token_ids = [single_token(self.tokenizer, w, str(folder)) for w in (false_token, true_token)]
        self.batch_size, self.max_length = batch_size, max_length

    def inputs(self, query: str, hits: list[Hit]) -> list[str]:
        return [TEMPLATE.format(query=query, document=passage_text(h)) for h in hits]

    def score_texts(self, texts: list[str]) -> list[float]:
        import torch

        start = self.model.config.decoder_start_token_id
        scores: list[float] = []
        for first in range(0, len(texts), self.batch_size):
            batch = self.tokenizer(texts[first:first + self.batch_size], padding=True, truncation=True,
                                   max_length=self.max_length, return_tensors="pt")
            decoder = torch.full((batch["input_ids"].shape[0], 1), start, dtype=torch.long)
            with torch.inference_mode():
                logits = self.model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                                    decoder_input_ids=decoder).logits[:, 0, self.token_ids]
            scores.extend(torch.log_softmax(logits.float(), dim=-1)[:, 1].tolist())
        return scores

    def rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
        if not hits:
            return []
        return reranked(hits, self.score_texts(self.inputs(query, hits)))
