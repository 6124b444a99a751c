"""The lexical index's analyzer: how Tantivy turns text into the terms it stores and searches.

Tantivy's simple tokenizer (runs of letters and digits), tokens longer than 40 bytes dropped, lower
case, Tantivy's ASCII folding filter (accents and other Latin marks folded to their ASCII letters:
"café" and "cafe" are one term, "Zürich" and "Zurich" too), then the English Snowball stemmer.
Folding happens here, in the index only: the stored text keeps the document's own spelling.

ANALYZER names this chain (and its version) as the index's tokenizer: it is registered on every
Tantivy index ragchain opens and recorded in the index manifest, so an index built with another
analyzer is refused at query time and rebuilt by the next `ingest` (stores/index.py), never mixed.
"""

from __future__ import annotations

import functools

ANALYZER = "en_stem_fold_v1"  # bump the version when the chain below changes what it yields
PREVIOUS = "en_stem"  # Tantivy's built-in analyzer, which indexes before this one used
MAX_TOKEN_BYTES = 40


@functools.cache
def analyzer():
    """The index's tokenizer, filters and stemmer as a tantivy.TextAnalyzer, for the index itself
    and for code that must see words as the index does (BM25 reranking, spelling, answer checks)."""
    import tantivy

    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(MAX_TOKEN_BYTES))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.ascii_fold())
            .filter(tantivy.Filter.stemmer("english"))
            .build())
