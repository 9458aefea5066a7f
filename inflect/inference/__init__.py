"""Answering queries: the predictor (the lexicon, then the model), the translator, attention
explanations, paradigms, and the registry of shipped models (:mod:`.registry`; the weights
themselves lie in ``inflect/models/``).
"""
