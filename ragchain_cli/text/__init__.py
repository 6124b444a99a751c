"""Text as ragchain reads it, in one place below retrieve/ and answer/: normalisation (ingest and
query time), words and stems, sentences, numbers, citation markers, and the yes/no restatement reader.
"""
