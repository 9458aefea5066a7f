"""Adapters of the predictor to other libraries' pipelines: :mod:`inflect.integrations.spacy`
(a spaCy component). Each imports its library only when it is used."""
