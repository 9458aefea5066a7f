"""Datasets: manifests and fetching with checksums (:mod:`.manifests`), descriptive statistics
(:mod:`.stats`), the official baseline's figures (:mod:`.baseline`), and the shipped paradigm cell
catalogues (:mod:`.cells`). Builds on :mod:`inflect.text`.
"""
