"""Table rows read as records: each row one sentence that names its columns.

A table flattened to "| E-417 | Thermistor chain not responding | Usually water ... |" loses which
cell is which once the header row falls in another chunk (or another sentence), and a reader, a
small model above all, then answers from the wrong cell. A row with a header of the same width
becomes "Code: E-417; Meaning: Thermistor chain not responding; What to do: Usually water ...":
one sentence (cells' own final full stops dropped, so the row is not split), every value beside
its column's name. Rows without such a header keep their cells joined by " | ".
"""

from __future__ import annotations

import re

SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def record(header: list[str], cells: list[str]) -> str:
    """One row as text: "column: value; ..." when `header` names each cell, else the cells joined."""
    cells = [" ".join(c.split()) for c in cells]
    if not header or len(header) != len(cells) or not any(header):
        return " | ".join(c for c in cells if c)
    fields = [f"{name}: {value.rstrip('.')}" if name else value.rstrip(".")
              for name, value in zip(header, cells) if value]
    return "; ".join(fields) + "." if fields else ""


def pipe_cells(line: str) -> list[str]:
    """The cells of one Markdown pipe-table line (outer pipes optional, `\\|` kept as a pipe)."""
    text = line.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") and not text.endswith("\\|") else text
    return [cell.replace("\\|", "|").strip() for cell in re.split(r"(?<!\\)\|", text)]


def markdown_tables(text: str) -> str:
    """`text` with each pipe table (header line, then a --- separator line) rewritten row by row
    as records; the header and separator lines are dropped, as every row now carries the header.
    Code fences are left as they are."""
    lines, out, i, fenced = text.split("\n"), [], 0, False
    while i < len(lines):
        fenced ^= lines[i].lstrip().startswith(("```", "~~~"))
        if not fenced and "|" in lines[i] and i + 1 < len(lines) and SEPARATOR.match(lines[i + 1]) and "|" in lines[i + 1]:
            header, i = pipe_cells(lines[i]), i + 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                row = record(header, pipe_cells(lines[i]))
                if row:
                    out.append(row)
                i += 1
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)
