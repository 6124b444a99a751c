"""The command line: one file per command; output.py is the single output sink.

The CLI owns its process, so its entry sets the offline switches before anything else loads.
"""

from ..offline import cli_process

cli_process()
