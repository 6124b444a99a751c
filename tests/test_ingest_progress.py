"""Ingest progress that tells the truth (ingest/progress.py, cli/ingest.py's label): chunks done out
of the chunks to embed, "about" while files are still read, rate and time left, within 80 columns."""

from __future__ import annotations

from ragchain_cli.cli.ingest import progress_label
from ragchain_cli.ingest.progress import IngestProgress, Tracker, estimate


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_total_is_estimated_from_finished_files_then_exact():
    seen: list[IngestProgress] = []
    clock = Clock()
    tracker = Tracker(seen.append, clock)
    tracker.found([1000, 1000, 2000])
    tracker.file(1, "a.txt")
    tracker.opened("a.txt", 1000)
    tracker.chunks(10)
    assert tracker.snapshot().chunks_total is None  # nothing finished: no ratio to estimate from
    tracker.closed("a.txt", finished=True)
    assert tracker.snapshot().chunks_total == 40 and tracker.snapshot().estimated  # 10 + 3000 bytes at 10/1000
    tracker.file(2, "b.txt")
    tracker.unchanged(1000)
    tracker.file(3, "c.txt")
    tracker.opened("c.txt", 2000)
    tracker.chunks(25)  # more than the estimate for c.txt: the count so far wins
    assert tracker.snapshot().chunks_total == 35
    tracker.progress(0, 0)  # embedding starts
    clock.now = 10.0
    tracker.progress(20, 5)
    tracker.closed("c.txt", finished=True)
    last = seen[-1]
    assert (last.chunks_done, last.chunks_total, last.estimated) == (25, 35, False)
    assert last.rate == 2.5 and last.seconds_left == 4.0


def test_the_label_fits_80_columns_and_says_about():
    state = IngestProgress(files_done=3, files_total=1200, path="/data/" + "a-very-long-file-name" * 5 + ".jsonl",
                           chunks_done=123_456, chunks_total=1_234_567, estimated=True, rate=12.5, stage="")
    label = progress_label(state, 80 - 25)
    assert label == "123,456/about 1,234,567 chunks  12/s  24:41:29 left"  # no room for the file: left out
    wider = progress_label(state, 80)
    assert len(wider) == 80 and wider.startswith(label + "  file 3/1200 a-very-long") and wider.endswith("...")
    exact = progress_label(IngestProgress(12, 12, "x.pdf", 40, 40, False, None, "writing"), 55)
    assert exact == "40/40 chunks  writing  file 12/12 x.pdf"
    early = progress_label(IngestProgress(1, 4, "x.pdf", 0, None, True, None, "loading all-MiniLM-L6-v2 ..."), 55)
    assert early.startswith("0 chunks so far  loading all-MiniLM-L6-v2 ...")


def test_the_chunks_to_come_are_estimated_from_the_part_read_so_far():
    assert estimate(chunks=30, read=2_500, unread=7_500) == 90


def test_one_big_file_has_a_total_and_time_left_before_it_is_read_to_its_end():
    clock = Clock()
    tracker = Tracker(None, clock)
    tracker.found([10_000])
    tracker.file(1, "corpus.jsonl")
    tracker.opened("corpus.jsonl", 10_000)
    tracker.chunks(30, read_to=2_500)  # a quarter of the file read: 30 chunks
    tracker.progress(0, 0)  # embedding starts
    clock.now = 10.0
    tracker.progress(20, 0)  # 2 chunks a second
    state = tracker.snapshot()
    assert (state.chunks_total, state.estimated, state.seconds_left) == (120, True, 50.0)


def test_a_jsonl_document_says_how_far_into_its_file_it_ends(tmp_path):
    import gzip

    from ragchain_cli.ingest.loaders import LoadOptions, load

    lines = "".join(f'{{"_id": "d{n}", "text": "passage {n}"}}\n' for n in range(3))
    plain, packed = tmp_path / "c.jsonl", tmp_path / "c.jsonl.gz"
    plain.write_text(lines, encoding="utf-8")
    packed.write_bytes(gzip.compress(lines.encode()))
    ends = [load(path, path.name, LoadOptions())[-1].read_to for path in (plain, packed)]
    assert ends == [plain.stat().st_size, packed.stat().st_size]  # of a .gz, compressed bytes, as its size is
