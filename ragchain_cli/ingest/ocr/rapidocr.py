"""RapidOCR (PaddleOCR models on onnxruntime): the pip-only backend, models inside the wheel.

The page is rendered with PyMuPDF; RapidOCR returns one box per text line, which are put back
into reading order (top to bottom, boxes on the same line left to right).
"""

from __future__ import annotations

import importlib.util
from typing import Any

from ...errors import DependencyMissing
from .render import render_dpi, render_rgb

INSTALL = "pip install rapidocr onnxruntime"
MAX_SIDE = 2000  # RapidOCR scales larger images down to this anyway


class RapidOcrBackend:
    name = "rapidocr"
    install = INSTALL

    def __init__(self, max_dpi: int = 150, rotated_lines: bool = False) -> None:
        self.check()
        from rapidocr import RapidOCR

        # The line-orientation classifier turns some upright lines (monospaced fonts) upside down,
        # which garbles them; it is only worth running on pages with lines upside down.
        self.engine = RapidOCR(params={"Global.log_level": "warning", "Global.use_cls": rotated_lines})
        self.max_dpi = max_dpi

    @classmethod
    def check(cls, **_: Any) -> None:
        missing = [name for name in ("rapidocr", "onnxruntime") if importlib.util.find_spec(name) is None]
        if missing:
            raise DependencyMissing(f"{' and '.join(missing)} not installed", INSTALL)

    def recognize(self, page: Any) -> str:
        pixels = render_rgb(page, render_dpi(page, self.max_dpi, MAX_SIDE))
        result = self.engine(pixels[:, :, ::-1].copy())  # RapidOCR takes OpenCV's BGR order
        if result.boxes is None or not result.txts:
            return ""
        return "\n".join(reading_order(result.boxes.tolist(), list(result.txts)))


def reading_order(boxes: list, texts: list[str]) -> list[str]:
    """Group line boxes (four corner points each) into lines of text, top to bottom."""
    items = []
    for box, text in zip(boxes, texts):
        ys = [point[1] for point in box]
        items.append((min(ys), max(ys), min(point[0] for point in box), text))
    items.sort()
    lines: list[list[tuple]] = []
    for item in items:
        current = lines[-1] if lines else None
        if current and _same_line(current[0], item):
            current.append(item)
        else:
            lines.append([item])
    return [" ".join(t for *_, t in sorted(line, key=lambda i: i[2])) for line in lines]


def _same_line(first: tuple, item: tuple) -> bool:
    top, bottom = first[0], first[1]
    overlap = min(bottom, item[1]) - max(top, item[0])
    return overlap > 0.5 * min(bottom - top, item[1] - item[0])
