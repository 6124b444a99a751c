"""The command line: one file per command; output.py is the single output sink.

Importing it runs nothing: the entry point (app.main) sets the process switches (offline.py)
before a command loads anything.
"""
