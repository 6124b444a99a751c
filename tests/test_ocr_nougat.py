"""Nougat through transformers from a local folder: a clear error without one, and the real loading
and generation code run end to end on a tiny random checkpoint the test builds (Donut-Swin encoder,
one-layer MBart decoder, a small tokenizer)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ragchain_cli.errors import ModelNotFound
from ragchain_cli.ingest.loaders import LoadOptions, load
from ragchain_cli.ingest.ocr.nougat import NougatBackend

WORD = "quokka"


def ragchain(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ragchain_cli", *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def scanned_pdf(path: Path) -> Path:
    """A one-page PDF holding only an image of some text (no text layer)."""
    import pymupdf

    source = pymupdf.open()
    page = source.new_page(width=612, height=792)
    page.insert_text((72, 100), "A scanned page of a scientific paper.", fontsize=14)
    pixmap = page.get_pixmap(dpi=100)
    scan = pymupdf.open()
    scan.new_page(width=612, height=792).insert_image(pymupdf.Rect(0, 0, 612, 792), pixmap=pixmap)
    scan.save(path, deflate=True)
    return path


def build_tiny_nougat(folder: Path) -> Path:
    """A random Nougat-shaped checkpoint whose decoder always emits WORD (so the test can search it)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")

    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "\u0120" + WORD: 4}
    for char in "abcdefghijklmnopqrstuvwxyz\u0120":
        vocab.setdefault(char, len(vocab))
    tokenizer = transformers.NougatTokenizer(vocab=vocab, merges=[])
    images = transformers.NougatImageProcessorPil(size={"height": 64, "width": 48})
    processor = transformers.NougatProcessor(image_processor=images, tokenizer=tokenizer)
    encoder = transformers.DonutSwinConfig(image_size=[64, 48], patch_size=4, embed_dim=8, depths=[1, 1],
                                           num_heads=[1, 1], window_size=4)
    decoder = transformers.MBartConfig(vocab_size=len(vocab), d_model=16, decoder_layers=1, encoder_layers=1,
                                       decoder_attention_heads=1, encoder_attention_heads=1, decoder_ffn_dim=16,
                                       encoder_ffn_dim=16, max_position_embeddings=24, is_decoder=True,
                                       add_cross_attention=True)
    torch.manual_seed(0)
    model = transformers.VisionEncoderDecoderModel(encoder=transformers.DonutSwinModel(encoder),
                                                   decoder=transformers.MBartForCausalLM(decoder))
    for config in (model.config, model.generation_config):
        config.decoder_start_token_id, config.pad_token_id, config.eos_token_id = 0, 1, 2
    with torch.no_grad():  # a constant final hidden state that points at WORD: random, yet deterministic
        direction = torch.ones(16)
        model.decoder.model.decoder.layer_norm.weight.zero_()
        model.decoder.model.decoder.layer_norm.bias.copy_(direction)
        model.decoder.lm_head.weight.zero_()
        model.decoder.lm_head.weight[vocab["\u0120" + WORD]] = direction
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_nougat(tmp_path_factory) -> Path:
    return build_tiny_nougat(tmp_path_factory.mktemp("nougat"))


def test_nougat_without_a_folder_fails_naming_the_files(tmp_path):
    scanned_pdf(tmp_path / "scan.pdf")
    result = ragchain("ingest", tmp_path / "scan.pdf", "--ocr", "nougat", "--index", tmp_path / "idx", "--json")
    assert result.returncode == 6, result.stderr
    first = result.stderr.splitlines()[0]
    assert "nougat needs a local model folder" in first
    assert all(name in first for name in ("config.json", "model.safetensors", "tokenizer.json"))
    assert "--nougat-model" in result.stderr and result.stdout == ""


def test_nougat_folder_without_weights_names_what_is_missing(tmp_path):
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ModelNotFound) as error:
        NougatBackend.check(model=str(tmp_path))
    assert error.value.message.endswith("lacks model.safetensors or pytorch_model.bin, preprocessor_config.json "
                                        "or processor_config.json, tokenizer.json, tokenizer_config.json")


def test_tiny_nougat_checkpoint_runs_through_the_pdf_loader(tiny_nougat, tmp_path):
    """--nougat-model's path: LoadOptions -> pdf loader -> ocr_page_text -> NougatBackend -> Block.ocr."""
    pdf = scanned_pdf(tmp_path / "scan.pdf")
    [doc] = load(pdf, "scan.pdf", LoadOptions(ocr="nougat", nougat_model=str(tiny_nougat)))
    [block] = doc.blocks
    assert (block.page, block.ocr) == (1, "nougat")
    assert set(block.text.split()) == {WORD}


def test_nougat_backend_generates_from_the_folder(tiny_nougat, tmp_path):
    import pymupdf

    backend = NougatBackend(model=str(tiny_nougat))
    with pymupdf.open(scanned_pdf(tmp_path / "scan.pdf")) as doc:
        page = doc.load_page(0)
        text = backend.recognize(page)
    words = text.split()  # the decoder's length limit ends the text (MBart forces </s> as the last token)
    assert set(words) == {WORD} and backend.max_new_tokens - 1 <= len(words) <= backend.max_new_tokens
