"""Loaders -> chunking -> the three stores."""
