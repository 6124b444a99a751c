"""The one normalisation of text, applied where text enters ragchain: at ingest (every block, title
and section before chunking, so the stored chunk text, its ID and its vector follow it) and at query
time (where a query enters the search pipeline).

A word then matches however the document typed it:
- invisible characters inside words go: the soft hyphen (U+00AD), zero-width space, non-joiner and
  joiner, word joiner, byte-order mark / zero-width no-break space, Mongolian vowel separator;
- every Unicode space (category Zs: no-break, thin, em, ideographic, ...) becomes a plain space;
- curly single quotes and apostrophes become ', curly double quotes become ";
- then Unicode NFKC: ligatures (U+FB00-FB06: "ﬁ" -> "fi"), full-width forms, superscript and
  subscript digits, compatibility spaces and letters become their plain forms, and a letter with a
  combining accent is composed.

NFKC never yields a character the first steps remove or map (checked over every code point), so
the result is a fixed point: normalize(normalize(t)) == normalize(t) == NFKC(normalize(t)).
Accents stay (the stored text shows "café"); the lexical index folds them (stores/analyzer.py).
"""

from __future__ import annotations

import unicodedata

NORMALIZATION = "nfkc-1"  # recorded in the index manifest; bump when normalize() changes what it yields

INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff\u180e"
SINGLE_QUOTES = "\u2018\u2019\u201a\u201b"  # ‘ ’ ‚ ‛
DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f"  # “ ” „ ‟
SPACES = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"

_TABLE = {
    **{ord(c): None for c in INVISIBLE},
    **{ord(c): "'" for c in SINGLE_QUOTES},
    **{ord(c): '"' for c in DOUBLE_QUOTES},
    **{ord(c): " " for c in SPACES},
}


def normalize(text: str) -> str:
    """`text` with invisible characters removed, spaces and quotes made plain, then NFKC."""
    if text.isascii():  # most text: nothing to do, and this check is cheap
        return text
    return unicodedata.normalize("NFKC", text.translate(_TABLE))
