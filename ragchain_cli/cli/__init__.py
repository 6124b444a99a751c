"""The command line: one file per command; output.py is the single output sink."""
