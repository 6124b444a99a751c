"""`ask` drafting in-process against drafting through a model server, with the same GGUF, side by side.

    python bench/ask_served.py --index INDEX --questions bench/qa/sample-gold.jsonl [--model NAME] \
        [--clients 1,2,4] [--out DIR]

Starts llama.cpp's OpenAI-compatible server (llama-cpp-python's `llama_cpp.server`, the `server`
extra) on 127.0.0.1 with the file `--llm MODEL` loads in-process (the default: the best installed
catalogue model; `--logits_all false`: its default computes the logits of every prompt token, which
made a 626-token prompt take 1.15x as long), waits until it answers, then measures, in one run:
- one-shot: a fresh `ragchain ask QUESTION` process a question, `--llm MODEL` and `--llm URL` in
  turn (which goes first alternates), wall seconds a process (median);
- warm: one `ragchain ask -` process each, the payload's `timings.total` a question (median);
- agreement: the questions whose answer and citations are the same both ways (temperature 0);
- clients: N `ragchain ask - --llm URL` processes at once, each with the whole question list: wall
  seconds until all are done, and questions answered a second.
Prints a Markdown report (with the machine and its load), also written to bench/out/ask_served.md.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import machine, median, table, write_report  # noqa: E402

RAGCHAIN = str(Path(sys.executable).with_name("ragchain"))
SAME = ("answer", "answered", "supported", "citations")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(model: Path, log: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
               "--port", str(port), "--n_ctx", "4096", "--logits_all", "false"]
    process = subprocess.Popen(command, stdout=open(log, "wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while "Uvicorn running" not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"llama_cpp.server did not start: {log.read_text(errors='replace')[-1500:]}")
        time.sleep(0.5)
    return process, f"http://127.0.0.1:{port}/v1"


def one_shot(index: str, question: str, llm: str) -> tuple[float, dict]:
    started = time.perf_counter()
    done = subprocess.run([RAGCHAIN, "ask", question, "--index", index, "--llm", llm, "--json"],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"ask failed ({done.returncode}): {done.stderr[-800:]}")
    return seconds, json.loads(done.stdout)


def batch(index: str, questions: list[str], llm: str) -> subprocess.Popen:
    process = subprocess.Popen([RAGCHAIN, "ask", "-", "--index", index, "--llm", llm, "--json"], text=True,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    process.stdin.write("\n".join(questions) + "\n")
    process.stdin.close()
    return process


def warm(index: str, questions: list[str], llm: str) -> list[dict]:
    process = batch(index, questions, llm)
    payloads = [json.loads(line) for line in process.stdout]
    process.wait()
    return payloads


def clients(index: str, questions: list[str], url: str, n: int) -> float:
    started = time.perf_counter()
    running = [batch(index, questions, url) for _ in range(n)]
    for process in running:
        process.stdout.read()
        process.wait()
    return time.perf_counter() - started


def measure(args, url: str) -> str:
    questions = [json.loads(line)["question"] for line in Path(args.questions).read_text().splitlines() if line.strip()]
    shots: dict[str, list[float]] = {"in-process": [], "served": []}
    answers: dict[str, list[dict]] = {"in-process": [], "served": []}
    for i, question in enumerate(questions):
        order = [("in-process", args.model), ("served", url)]
        for name, llm in (order if i % 2 == 0 else order[::-1]):
            seconds, payload = one_shot(args.index, question, llm)
            shots[name].append(seconds)
            answers[name].append(payload)
    agree = sum({k: a.get(k) for k in SAME} == {k: b.get(k) for k in SAME}
                for a, b in zip(answers["in-process"], answers["served"]))
    warm_total = {name: median([p["timings"]["total"] for p in warm(args.index, questions, llm)])
                  for name, llm in (("in-process", args.model), ("served", url))}
    rows = [[name, f"{median(shots[name]):.2f}", f"{warm_total[name]:.2f}"] for name in shots]
    lines = [f"## ask: in-process against served ({len(questions)} questions, {args.model})", "",
             f"Machine: {machine()}", f"Command: `python bench/ask_served.py {' '.join(sys.argv[1:])}`", "",
             table(["drafted", "one-shot s (median, wall of a fresh process)", "warm s (median timings.total)"], rows),
             "", f"One-shot served / in-process: {median(shots['served']) / median(shots['in-process']):.2f}x. "
             f"Same answer and citations both ways: {agree} of {len(questions)}.", ""]
    per_n = [[n, f"{(wall := clients(args.index, questions, url, n)):.1f}", f"{n * len(questions) / wall:.2f}"]
             for n in args.clients]
    lines += [table(["`ask -` clients at once", "wall s", "questions a second"], per_n)]
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        for name, payloads in answers.items():
            Path(args.out, f"{name}.jsonl").write_text("".join(json.dumps(p) + "\n" for p in payloads))
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--questions", required=True, help="JSONL with a 'question' field a line")
    parser.add_argument("--model", default="", help="catalogue name or GGUF path [default: the best installed]")
    parser.add_argument("--clients", default="1,2,4", type=lambda text: [int(n) for n in text.split(",")])
    parser.add_argument("--out", default="", help="write each side's answers here as JSONL")
    args = parser.parse_args(argv)
    from ragchain_cli.llm.models import resolve_model

    path = resolve_model(args.model or None)
    args.model = args.model or str(path)
    log = Path(args.out or "bench/out") / "ask_served_server.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    server, url = start_server(path, log)
    try:
        report = measure(args, url)
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(report)
    write_report("ask_served.md", report)


if __name__ == "__main__":
    main(sys.argv[1:])
