"""The answer judge: shipped in weights/, run by model.py; trained by tools/judge/ (not installed)."""
