"""ragchain: offline-first retrieval-augmented generation for local document collections.

Importing the package does no work and changes nothing in the process: the offline switches
are set by the CLI at start and by each library call that loads a model (offline.py).
"""

__version__ = "0.1.0"
