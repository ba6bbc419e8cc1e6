"""The verdict: each answer sentence checked against the passages, then the headline.

``marks.mark_sentences`` aligns every sentence of an answer with the passage span that backs
it (or says why none does); ``judge.judge`` combines those marks with the retrieval evidence
into the verdict shown first. ``checks.CHECKS`` lists every check the two make.
"""
