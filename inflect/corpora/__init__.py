"""Datasets: manifests and fetching with checksums (:mod:`.manifests`), one split of a language
read from the data folder (:mod:`.splits`), descriptive statistics (:mod:`.stats`), the official
baseline's figures (:mod:`.baseline`), and the shipped paradigm cell catalogues (:mod:`.cells`).
Builds on :mod:`inflect.text`.
"""
