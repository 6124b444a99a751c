"""deepdoctection's analyzer pipeline. Offline it runs with Tesseract only (no layout model, no
table segmentation, no DocTr, no PDFMiner, no rotator). Layout and table mode needs model weights:
a folder laid out like deepdoctection's own cache (`weights/...` and `configs/...`), given with
`weights=` or RAGCHAIN_DEEPDOCTECTION_WEIGHTS.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import warnings
from pathlib import Path
from typing import Any

from ...errors import DependencyMissing, ModelNotFound
from ...offline import quiet_hub
from .render import render_dpi, render_png

ENV = "RAGCHAIN_DEEPDOCTECTION_WEIGHTS"
INSTALL = "pip install deepdoctection, and apt-get install tesseract-ocr tesseract-ocr-eng"
TESSERACT_ONLY = ["USE_LAYOUT=False", "USE_TABLE_SEGMENTATION=False", "USE_OCR=True", "OCR.USE_TESSERACT=True",
                  "OCR.USE_DOCTR=False", "OCR.USE_TEXTRACT=False", "USE_PDF_MINER=False", "USE_ROTATOR=False",
                  "USE_LAYOUT_NMS=False"]
LAYOUT = ["USE_LAYOUT=True", "USE_TABLE_SEGMENTATION=True", "USE_OCR=True", "OCR.USE_TESSERACT=True",
          "OCR.USE_DOCTR=False", "OCR.USE_TEXTRACT=False", "USE_PDF_MINER=False", "USE_ROTATOR=False"]
LAYOUT_FILES = (
    "weights/Aryn/deformable-detr-DocLayNet/model.safetensors",
    "configs/Aryn/deformable-detr-DocLayNet/config.json",
    "configs/Aryn/deformable-detr-DocLayNet/preprocessor_config.json",
    "weights/deepdoctection/tatr_tab_struct_v2/pytorch_model.bin",
    "configs/deepdoctection/tatr_tab_struct_v2/config.json",
    "configs/deepdoctection/tatr_tab_struct_v2/preprocessor_config.json",
)


class DeepdoctectionBackend:
    name = "deepdoctection"
    install = INSTALL

    def __init__(self, layout: bool = False, weights: str = "", max_dpi: int = 300) -> None:
        folder = self.check(layout=layout, weights=weights)
        with warnings.catch_warnings():  # deepdoctection's own deprecation notes (pydantic) are not ours
            warnings.simplefilter("ignore", DeprecationWarning)
            dd = _import_quietly()
            self.analyzer = dd.get_dd_analyzer(config_overwrite=_config(folder))
        self.max_dpi = max_dpi

    @classmethod
    def check(cls, layout: bool = False, weights: str = "", **_: Any) -> Path | None:
        """Raise when deepdoctection or the tesseract program is missing; the weights folder for layout."""
        if importlib.util.find_spec("deepdoctection") is None:
            raise DependencyMissing("deepdoctection is not installed", INSTALL)
        if shutil.which("tesseract") is None:
            raise DependencyMissing("the `tesseract` program is not on PATH (deepdoctection runs it)", INSTALL)
        chosen = weights or os.environ.get(ENV, "")
        if not (layout or chosen):
            return None
        if not chosen:
            raise ModelNotFound("deepdoctection layout and table mode needs a weights folder",
                                f"pass weights= or set {ENV} to a folder holding {', '.join(LAYOUT_FILES)}")
        folder = Path(chosen).expanduser()
        absent = [name for name in LAYOUT_FILES if not (folder / name).is_file()]
        if absent:
            raise ModelNotFound(f"the deepdoctection weights folder {folder} lacks {', '.join(absent)}",
                                "copy ~/.cache/deepdoctection from a machine where deepdoctection downloaded them")
        return folder

    def recognize(self, page: Any) -> str:
        png = render_png(page, render_dpi(page, self.max_dpi))
        flow = self.analyzer.analyze(path=f"page-{page.number + 1}.png", bytes=png, file_type=".png")
        flow.reset_state()
        return "\n".join(result.text for result in flow)


def _config(folder: Path | None) -> list[str]:
    """Analyzer settings; with a weights folder deepdoctection reads its models and configs from it."""
    if folder is None:
        return list(TESSERACT_ONLY)
    from dd_core.utils.env_info import SETTINGS

    import deepdoctection

    SETTINGS.MODEL_DIR = folder / "weights"
    SETTINGS.CONFIGS_DIR = folder / "configs"
    tesseract = Path(deepdoctection.__file__).parent / "configs" / "conf_tesseract.yaml"
    return LAYOUT + [f"OCR.CONFIG.TESSERACT={tesseract}"]


def _import_quietly():
    """Import deepdoctection, which configures the root logger (at LOG_LEVEL, which it exports to the
    environment itself, INFO unless set); keep its notes below warnings and put the root logger back."""
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    quiet_hub()
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    try:
        import deepdoctection
    except ImportError as exc:
        raise DependencyMissing(f"deepdoctection cannot be imported ({exc})", INSTALL) from None
    finally:
        root.setLevel(level)
        root.handlers[:] = handlers
    return deepdoctection
