"""Prompt reading speed of the local model under llama.cpp settings, side by side in one run.

    python bench/prompt_speed.py [--llm NAME|PATH] [--tokens 520] [--repeat 5]
    python bench/prompt_speed.py --files A.gguf B.gguf ...   # files compared at ragchain's setting

Each setting (or file) gets its own loaded model; every repeat evaluates the same prompt tokens (a slice of
README.md) once per setting, from an empty KV cache, the settings interleaved so machine load falls
on all alike. Prints the median seconds and tokens a second of each, and the ratio to the first.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

SETTINGS = {
    "ragchain's setting (1 / 2 threads)": dict(n_threads=1, n_threads_batch=2),
    "+ flash attention (not adopted)": dict(n_threads=1, n_threads_batch=2, flash_attn=True),
    "micro-batches of 128": dict(n_threads=1, n_threads_batch=2, n_ubatch=128),
    "1 prompt thread": dict(n_threads=1, n_threads_batch=1),
}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default=None, help="catalogue name or GGUF path [default: the default model]")
    parser.add_argument("--tokens", type=int, default=520, help="prompt length (a typical `ask` prompt)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--files", nargs="+", default=[],
                        help="GGUF files to compare at ragchain's setting (e.g. the shipped Q4_K_M and its F16 conversion)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from ragchain_cli.generate.llama import _import_llama_cpp
    from ragchain_cli.generate.models import resolve_model

    llama_cpp = _import_llama_cpp()
    path = str(resolve_model(args.llm))
    if args.files:
        ours = next(iter(SETTINGS.values()))
        models = {Path(f).name: llama_cpp.Llama(model_path=f, n_ctx=2048, verbose=False, **ours) for f in args.files}
    else:
        models = {name: llama_cpp.Llama(model_path=path, n_ctx=2048, verbose=False, **kw) for name, kw in SETTINGS.items()}
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    tokens = next(iter(models.values())).tokenize(text.encode("utf-8"))[: args.tokens]
    seconds: dict[str, list[float]] = {name: [] for name in models}
    for _ in range(args.repeat):
        for name, model in models.items():
            model.reset()
            started = time.perf_counter()
            model.eval(tokens)
            seconds[name].append(time.perf_counter() - started)
    first = statistics.median(next(iter(seconds.values())))
    print(f"{len(tokens)} prompt tokens, {args.repeat} repeats, {Path(path).name}")
    for name, values in seconds.items():
        median = statistics.median(values)
        print(f"{name:45s} {median:6.2f} s  {len(tokens) / median:6.0f} tok/s  {median / first:5.2f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
