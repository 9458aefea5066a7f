"""sparse-inflect: morphological inflection with sparse sequence-to-sequence models.

Implements Peters, Niculae & Martins, *Sparse Sequence-to-Sequence Models* (ACL 2019,
arXiv:1905.05702): a character-level BiLSTM encoder and an LSTM decoder whose attention and output
mappings are α-entmax (softmax at α=1, sparsemax at α=2), trained with the entmax Fenchel–Young loss.

The sub-packages follow the way a request travels (README, "Architecture"): :mod:`inflect.text`,
:mod:`inflect.corpora`, :mod:`inflect.sparse`, :mod:`inflect.nn`, :mod:`inflect.decoding`,
:mod:`inflect.lexicon`, :mod:`inflect.inference`, :mod:`inflect.training`,
:mod:`inflect.evaluation`, :mod:`inflect.render`, :mod:`inflect.cli`. The most used names are
importable from here: ``inflect.Predictor``, ``inflect.evaluate_checkpoints``, ``inflect.train``,
and the one-call ``inflect.inflect("Haus", "N;DAT;PL", lang="german").best`` (tags in any
dialect: UniMorph, UniMorph 4, UD; :mod:`inflect.inference.api`).
"""

from inflect import _moved

__version__ = "0.2.0"

_moved.install()

_EXPORTS = {
    "inflect": "inflect.inference.api",
    "Predictor": "inflect.inference.predictor",
    "Translator": "inflect.inference.translator",
    "Paradigms": "inflect.inference.paradigm",
    "evaluate_checkpoints": "inflect.evaluation.runner",
    "train": "inflect.training.trainer",
    "resolve": "inflect.text.languages",
}


def __getattr__(name: str):
    """The names of ``_EXPORTS``, imported on first use (``import inflect`` stays cheap)."""
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'inflect' has no attribute {name!r}")
