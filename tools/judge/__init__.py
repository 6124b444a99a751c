"""The answer judge's training, out of the runtime: data.py (the training files from public
repositories), explorer.py (SQuAD train from the SQuAD explorer's pages), pairs.py (training pairs),
train.py (training and export). The judge itself runs from ragchain_cli/judge/model.py (docs/JUDGE.md)."""
