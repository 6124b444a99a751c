"""Word 5-gram shingles and their MinHash LSH bands, in numpy, for a whole batch of documents at once.

A word is a run of [a-z0-9] in the lower-cased text (any other character separates words); a
shingle is a hash of SHINGLE_WORDS consecutive words of one text (a text of fewer words: one hash
of all of them). Words are hashed with a polynomial over their bytes (prefix sums, so every word
of a batch is hashed by a few array operations), a shingle by a multiply-add over its words, kept
to 32 bits. The band keys are MinHash over multiply-shift hashes, BANDS bands of ROWS rows.

The index records SHINGLE_HASH in its manifest: an index whose bands were hashed otherwise (the
crc32 of the joined words, before issue 30) has them rehashed by the next ingest (versions.py).
"""

from __future__ import annotations

import numpy as np

SHINGLE_WORDS = 5
BANDS, ROWS = 16, 4  # 64 MinHash permutations: a pair at Jaccard 0.5 shares a band with p = 0.64, at 0.8 p > 0.999
SHINGLE_HASH = "poly64-v1"  # the manifest's `shingle_hash`

_RNG = np.random.default_rng(20261201)
_A = _RNG.integers(1, 2**63, BANDS * ROWS, dtype=np.uint64) | np.uint64(1)
_B = _RNG.integers(0, 2**63, BANDS * ROWS, dtype=np.uint64)
_MIX = _RNG.integers(1, 2**63, SHINGLE_WORDS + 1, dtype=np.uint64) | np.uint64(1)  # per word position, + length
_ROW_MIX = _RNG.integers(1, 2**63, ROWS, dtype=np.uint64) | np.uint64(1)
_P = np.uint64(0x100000001B3)  # odd: invertible modulo 2**64
_P_INVERSE = np.uint64(pow(int(_P), -1, 2**64))
_STEP = 20_000  # shingles hashed against the 64 permutations at a time (64 x 20k x 8 bytes)


_POWERS: dict[int, np.ndarray] = {}  # base -> base**0 .. base**n, grown as longer batches come


def _powers(base: np.uint64, count: int) -> np.ndarray:
    """base**0 .. base**count (at least), modulo 2**64."""
    known = _POWERS.get(int(base))
    if known is None or known.size <= count:
        out = np.empty(max(count + 1, 1 << 20), dtype=np.uint64)
        out[0] = 1
        out[1:] = base
        known = _POWERS[int(base)] = np.cumprod(out, dtype=np.uint64)
    return known


def _words(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(hash of each word, index of the text holding it), every text's words in order."""
    parts = [text.lower().encode() for text in texts]
    data = np.frombuffer(b"\x00".join(parts), dtype=np.uint8)  # any byte but [a-z0-9] separates words
    if not data.size:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    text_ends = np.cumsum([len(part) + 1 for part in parts])
    letter = ((data >= 97) & (data <= 122)) | ((data >= 48) & (data <= 57))
    edges = np.diff(np.concatenate(([0], letter.view(np.int8), [0])))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    with np.errstate(over="ignore"):
        prefix = np.zeros(data.size + 1, dtype=np.uint64)
        prefix[1:] = np.cumsum(data.astype(np.uint64) * _powers(_P, data.size)[1 : data.size + 1], dtype=np.uint64)
        hashes = (prefix[ends] - prefix[starts]) * _powers(_P_INVERSE, data.size)[starts]
        hashes = hashes * _MIX[-1] + (ends - starts).astype(np.uint64)
    return hashes, np.searchsorted(text_ends, starts, side="right")


def shingle_arrays(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(each shingle's 32-bit hash as uint64, the index of its text), in text order."""
    words, text_of = _words(texts)
    n = SHINGLE_WORDS
    total = np.zeros(max(0, words.size - n + 1), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k in range(n if total.size else 0):
            total += words[k : k + total.size] * _MIX[k]
    whole = np.flatnonzero(text_of[: total.size] == text_of[n - 1 :]) if total.size else np.zeros(0, np.int64)
    hashes, owners = [total[whole]], [text_of[whole]]
    counts = np.bincount(text_of, minlength=len(texts))
    for text in np.flatnonzero((counts > 0) & (counts < n)):  # a short text: one shingle of all its words
        first = int(np.searchsorted(text_of, text))
        with np.errstate(over="ignore"):
            hashes.append(np.array([(words[first : first + counts[text]] * _MIX[: counts[text]]).sum(dtype=np.uint64)]))
        owners.append(np.array([text]))
    hashes_all, owners_all = np.concatenate(hashes), np.concatenate(owners)
    order = np.argsort(owners_all, kind="stable")
    with np.errstate(over="ignore"):
        mixed = (hashes_all[order] ^ (hashes_all[order] >> np.uint64(29))) * _MIX[0]
    return mixed >> np.uint64(32), owners_all[order]


def document_shingles(documents: list[list[str]]) -> list[np.ndarray]:
    """Each document's shingles (uint64; the overlap of its chunks repeats some), from its chunks' texts."""
    texts = [text for chunks in documents for text in chunks]
    hashes, text_of = shingle_arrays(texts)
    first_text = np.cumsum([0] + [len(chunks) for chunks in documents])
    bounds = np.searchsorted(text_of, first_text)
    return [hashes[bounds[i] : bounds[i + 1]] for i in range(len(documents))]


def shingles(texts: list[str]) -> set[int]:
    """The shingle set of one document's texts (chunks overlap, so their union covers the document)."""
    return set(shingle_arrays(texts)[0].tolist())


def bands_of(sets: list[np.ndarray]) -> list[list[int]]:
    """Each shingle array's LSH band keys (none for an empty one), many documents at a time."""
    out: list[list[int]] = [[] for _ in sets]
    todo = [i for i, found in enumerate(sets) if found.size]
    first = 0
    while first < len(todo):
        last, size = first + 1, sets[todo[first]].size
        while last < len(todo) and size + sets[todo[last]].size <= _STEP:
            size += sets[todo[last]].size
            last += 1
        group, first = todo[first:last], last
        values = np.concatenate([sets[i] for i in group])
        with np.errstate(over="ignore"):
            hashed = (_A[:, None] * values[None, :] + _B[:, None]) >> np.uint64(32)
            offsets = np.cumsum([0] + [sets[i].size for i in group[:-1]])
            signature = np.minimum.reduceat(hashed, offsets, axis=1).T.reshape(len(group), BANDS, ROWS)
            keys = (signature * _ROW_MIX).sum(axis=2, dtype=np.uint64) >> np.uint64(32)
        keys = keys + (np.arange(BANDS, dtype=np.uint64) << np.uint64(32))
        for i, row in zip(group, keys.tolist()):
            out[i] = row
    return out


def bands(shingle_set: set[int]) -> list[int]:
    return bands_of([np.fromiter(shingle_set, dtype=np.uint64, count=len(shingle_set))])[0]


def jaccard(a: set[int], b: set[int]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0
