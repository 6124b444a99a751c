"""A hit's snippet: the part of its text that holds the most of the query's words.

A chunk's first 240 characters often say nothing of what matched ("heron inlet closure" found in a
chunk that opens on Site 6). The snippet is the window of SNIPPET_WIDTH characters, of the chunk
with its whitespace folded, that holds the most distinct content words of the query (as the index
stems them), nearest its start; it opens at the start of the sentence holding the first of them when that is near, and
"... " marks a snippet that does not open where the chunk does, " ..." one that stops before the
chunk ends (at a word's end, never inside one). With no query, or none of its words in the chunk,
the snippet is the chunk's head, as before.
"""

from __future__ import annotations

from .text.words import TOKEN, content_stems, stem

SNIPPET_WIDTH = 240
LEAD = 100  # characters of context kept before a matched word (back to its sentence start when that is nearer)
ELLIPSIS = "... "
CUT = " ..."


def snippet(text: str, query: str = "", width: int = SNIPPET_WIDTH) -> str:
    flat = " ".join(text.split())
    wanted = set(content_stems(query)) if query.strip() else set()
    if len(flat) <= width or not wanted:
        return clipped(flat, width)
    matched = [(m.start(), s) for m in TOKEN.finditer(flat) if (s := stem(m.group())) in wanted]
    if not matched:
        return clipped(flat, width)
    starts = [0] + [_opening(flat, at) for at, _ in matched]
    best = max(starts, key=lambda start: _fit(matched, start, width))
    if best == 0:
        return clipped(flat, width)
    return ELLIPSIS + clipped(flat[best:], width - len(ELLIPSIS))


def clipped(text: str, width: int) -> str:
    """`text` in at most `width` characters: whole when it fits, else cut at a word's end and marked " ..."."""
    if len(text) <= width:
        return text
    head = text[:width - len(CUT) + 1]
    space = head.rfind(" ")
    return (head[:space] if space > 0 else head[:-1]).rstrip(" ,;:") + CUT


def _fit(matched: list[tuple[int, str]], start: int, width: int) -> tuple[int, int, int]:
    """How well the window that opens at `start` shows the query: the most distinct query words
    standing whole inside it, then the nearest its start the last of them is first seen (a display
    cuts long snippets short), then the earliest window."""
    first: dict[str, int] = {}
    for at, s in matched:
        if start <= at < start + width - len(ELLIPSIS) - len(s):
            first.setdefault(s, at - start)
    return len(first), -max(first.values(), default=0), -start


def _opening(flat: str, at: int) -> int:
    """Where a window showing the word at `at` opens: the start of its sentence when that is at most
    LEAD characters before it, else the start of a word about LEAD characters before it."""
    floor = max(0, at - LEAD)
    sentence = max(flat.rfind(". ", floor, at), flat.rfind("? ", floor, at), flat.rfind("! ", floor, at))
    if sentence >= 0:
        return sentence + 2
    space = flat.find(" ", floor, at)
    return 0 if floor == 0 else (space + 1 if space >= 0 else at)
