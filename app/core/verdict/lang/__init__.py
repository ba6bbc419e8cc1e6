"""Language packs of the verdict: the words of one language its checks need (``en``)."""
