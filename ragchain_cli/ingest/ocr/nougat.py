"""Nougat (Blecher et al., 2023): scientific pages to Markdown with transformers'
VisionEncoderDecoderModel and NougatProcessor, loaded from a local folder only (nothing is
downloaded; the nougat-ocr package is not used). The folder comes from --nougat-model or
RAGCHAIN_NOUGAT_MODEL, e.g. a copy of facebook/nougat-small or facebook/nougat-base.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from pathlib import Path
from typing import Any

from ...errors import DependencyMissing, ModelNotFound
from ...offline import quiet_hub
from .render import render_pil

ENV = "RAGCHAIN_NOUGAT_MODEL"
REQUIRED = (("config.json",), ("model.safetensors", "pytorch_model.bin"),
            ("preprocessor_config.json", "processor_config.json"), ("tokenizer.json",), ("tokenizer_config.json",))
EXPECTED = ("config.json, model.safetensors (or pytorch_model.bin), preprocessor_config.json "
            "(or processor_config.json), tokenizer.json and tokenizer_config.json")
HINT = ("copy a Nougat model folder (e.g. facebook/nougat-base from a machine with network access) "
        f"and pass it with --nougat-model or {ENV}")
RENDER_DPI = 96  # Nougat sees 896x672 pixels; a letter page at 96 dpi is 816x1056


class NougatBackend:
    name = "nougat"
    install = f"pip install transformers torch, and {HINT}"

    def __init__(self, model: str = "", max_new_tokens: int | None = None) -> None:
        self.folder = self.check(model=model)
        quiet_hub()
        import torch
        from transformers import NougatProcessor, VisionEncoderDecoderModel

        with _quiet_transformers():
            try:
                self.processor = NougatProcessor.from_pretrained(str(self.folder), local_files_only=True)
                self.model = VisionEncoderDecoderModel.from_pretrained(str(self.folder), local_files_only=True)
            except (OSError, ValueError, KeyError) as exc:
                raise ModelNotFound(f"cannot load the Nougat model in {self.folder}: {exc}", HINT) from None
        self.model.eval()
        self.torch = torch
        limit = int(getattr(self.model.config.decoder, "max_position_embeddings", 4096)) - 2
        self.max_new_tokens = min(max_new_tokens or limit, limit)

    @classmethod
    def check(cls, model: str = "", **_: Any) -> Path:
        missing = [name for name in ("torch", "transformers") if importlib.util.find_spec(name) is None]
        if missing:
            raise DependencyMissing(f"nougat needs {' and '.join(missing)}", "pip install transformers torch")
        chosen = model or os.environ.get(ENV, "")
        if not chosen:
            raise ModelNotFound(f"nougat needs a local model folder holding {EXPECTED}", HINT)
        folder = Path(chosen).expanduser()
        absent = [" or ".join(names) for names in REQUIRED if not any((folder / n).is_file() for n in names)]
        if absent:
            raise ModelNotFound(f"the Nougat model folder {folder} lacks {', '.join(absent)}",
                                f"a Nougat folder holds {EXPECTED}; {HINT}")
        return folder

    def recognize(self, page: Any) -> str:
        image = render_pil(page, RENDER_DPI)
        pixel_values = self.processor(images=image, return_tensors="pt").pixel_values
        tokenizer = self.processor.tokenizer
        with self.torch.inference_mode():
            output = self.model.generate(pixel_values, min_length=1, max_new_tokens=self.max_new_tokens,
                                         bad_words_ids=[[tokenizer.unk_token_id]])
        text = self.processor.batch_decode(output, skip_special_tokens=True)[0]
        return _postprocess(self.processor, text)


def _postprocess(processor: Any, text: str) -> str:
    """Nougat's own Markdown clean-up when its extras (nltk, Levenshtein) are installed."""
    from transformers.utils import is_levenshtein_available, is_nltk_available

    if is_nltk_available() and is_levenshtein_available():
        return processor.post_process_generation(text, fix_markdown=False)
    return text.strip()


@contextlib.contextmanager
def _quiet_transformers():
    """No progress bars or info notes from transformers while the model loads."""
    from transformers.utils import logging as hf_logging

    verbosity, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()
