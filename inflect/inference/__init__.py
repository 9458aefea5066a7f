"""Answering queries: inputs read and checked (:mod:`.queries`), the search shared by inflection
and translation (:mod:`.searcher`), the answers and their records (:mod:`.outcomes`), the
predictor (the lexicon, then the model: :mod:`.predictor`), the translator, attention
explanations, paradigms (:mod:`.paradigm`, their cells :mod:`.paradigm_cells`), and the registry
of shipped models (:mod:`.registry`; the weights themselves lie in ``inflect/models/``) and the
user's own models beside them (:mod:`.user_models`).
"""
