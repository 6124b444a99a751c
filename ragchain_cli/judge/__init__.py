"""The answer judge: trained by ragchain (train.py, from pairs.py), shipped in weights/, run by model.py."""
