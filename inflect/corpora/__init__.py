"""Datasets: manifests and fetching with checksums (:mod:`.manifests`), one split of a language
read from the data folder (:mod:`.splits`), descriptive statistics (:mod:`.stats`), the official
baseline's figures (:mod:`.baseline`), the shipped paradigm cell catalogues (:mod:`.cells`), and
the spec of a language the package does not ship, made from its data (:mod:`.user_langs`).
Builds on :mod:`inflect.text`.
"""
