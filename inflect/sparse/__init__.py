"""α-entmax mappings and their Fenchel–Young losses (torch only).

Public names, positional arguments, defaults and results follow the ``entmax`` package
(deep-spin, version 1.3, without its normmax and budget mappings), so that switching is a change
of import (``import inflect.sparse as entmax``); the deliberate differences are listed in the
README (section "Sparse core").
Sources: Peters, Niculae & Martins (2019), "Sparse Sequence-to-Sequence Models" (ACL);
Martins & Astudillo (2016), "From Softmax to Sparsemax" (ICML); Correia, Niculae & Martins (2019),
"Adaptively Sparse Transformers" (EMNLP).

Conventions shared by every function: probabilities along ``dim`` (any, negative allowed);
float16/bfloat16 computed in float32 and returned in the input dtype; logits shifted by the row
maximum first; ``-inf`` logits get exactly 0 probability; a row that is entirely ``-inf`` gives
all zeros (zero gradient) for the mappings and ``+inf`` for the losses (unless its target is
``ignore_index``).
"""

from inflect.sparse.activations import (
    Entmax15,
    Sparsemax,
    entmax15,
    softmax,
    sparsemax,
)
from inflect.sparse.dispatch import Entmax, entmax
from inflect.sparse.losses import (
    Entmax15Loss,
    EntmaxBisectLoss,
    EntmaxLoss,
    SparsemaxBisectLoss,
    SparsemaxLoss,
    entmax15_loss,
    entmax_bisect_loss,
    entmax_loss,
    sparsemax_bisect_loss,
    sparsemax_loss,
)
from inflect.sparse.mapping import (
    EntmaxMapping,
    Mapping,
    get_mapping,
    mapping_alpha,
    mapping_names,
    register_mapping,
)
from inflect.sparse.root_finding import (
    EntmaxBisect,
    SparsemaxBisect,
    entmax_bisect,
    sparsemax_bisect,
)

__all__ = [
    "Entmax",
    "Entmax15",
    "Entmax15Loss",
    "EntmaxBisect",
    "EntmaxBisectLoss",
    "EntmaxLoss",
    "EntmaxMapping",
    "Mapping",
    "Sparsemax",
    "SparsemaxBisect",
    "SparsemaxBisectLoss",
    "SparsemaxLoss",
    "entmax",
    "entmax15",
    "entmax15_loss",
    "entmax_bisect",
    "entmax_bisect_loss",
    "entmax_loss",
    "get_mapping",
    "mapping_alpha",
    "mapping_names",
    "register_mapping",
    "softmax",
    "sparsemax",
    "sparsemax_bisect",
    "sparsemax_bisect_loss",
    "sparsemax_loss",
]
