"""The checkpoint layout: the names (and the order) of the model's tensors outside the module.

Checkpoints and trainer states store the weights of :class:`inflect.nn.model.Seq2Seq` under the
names of the 0.1 model, whose layers were attributes of one module (``source_embedding.weight``,
``encoder.weight_ih_l0``, ``decoder.0.weight_ih``, ``score_proj.weight``, ...); since the model
is an :class:`~inflect.nn.encoder.Encoder` and a :class:`~inflect.nn.decoder.Decoder`, the same
tensors live at other module paths (``encoder.source_embedding.weight``,
``encoder.lstm.weight_ih_l0``, ``decoder.layers.0.weight_ih``, ``decoder.attention.key_proj.weight``).
:data:`CHECKPOINT_NAMES` maps one to the other, in one place; :func:`keep_checkpoint_names`
makes ``state_dict`` and ``load_state_dict`` speak the checkpoint names only, so every checkpoint
written before the split loads, and every one written after it is the same file.

The rows of one encoder hold for models with that encoder only (:data:`ENCODER_ROWS`,
:func:`checkpoint_names`): the 0.1 model's ``encoder.*`` were the BiLSTM's ``encoder.lstm.*``;
another encoder's weights keep their module paths (``encoder.input_proj.weight``), and only the
shared rows (the embeddings, the decoder) rename its tensors.

The table's order is the 0.1 model's parameter order, which the optimizer states of trainer
states index (``optim.{i}.*``) and in which gradient clipping sums the norms:
:meth:`~inflect.nn.model.Seq2Seq.named_parameters` keeps it (:func:`rank`; the weights of an
encoder without rows come after every row, in module order).
"""

from __future__ import annotations

from typing import Any

from torch import nn

__all__ = [
    "CHECKPOINT_NAMES",
    "ENCODER_ROWS",
    "checkpoint_name",
    "checkpoint_names",
    "keep_checkpoint_names",
    "module_path",
    "rank",
]

Rows = tuple[tuple[str, str], ...]

#: (checkpoint name or prefix, module path or prefix), in the 0.1 parameter order: the table of a
#: BiLSTM model. A prefix ends with a dot and renames everything under it.
CHECKPOINT_NAMES: Rows = (
    ("attention_alpha_raw", "decoder.attention.alpha_raw"),
    ("source_embedding.", "encoder.source_embedding."),
    ("target_embedding.", "decoder.target_embedding."),
    ("feature_embedding.", "encoder.feature_embedding."),
    ("language_embedding.", "encoder.language_embedding."),
    ("encoder.", "encoder.lstm."),
    ("decoder.", "decoder.layers."),
    ("score_proj.", "decoder.attention.key_proj."),
    ("score_query.", "decoder.attention.query_proj."),
    ("score_v.", "decoder.attention.v."),
    ("combine.", "decoder.combine."),
    ("generator.", "decoder.generator."),
    ("copy_gate.", "decoder.copy_gate."),
)


#: The rows of :data:`CHECKPOINT_NAMES` that hold for one encoder only (``ModelConfig.encoder``).
ENCODER_ROWS: dict[str, Rows] = {"bilstm": (("encoder.", "encoder.lstm."),)}


def checkpoint_names(encoder: str = "bilstm") -> Rows:
    """The table of a model with ``encoder``: :data:`CHECKPOINT_NAMES` without the rows of the
    other encoders (:data:`ENCODER_ROWS`), in the same order."""
    others = {row for name, rows in ENCODER_ROWS.items() if name != encoder for row in rows}
    return tuple(row for row in CHECKPOINT_NAMES if row not in others)


def _match(name: str, side: int, rows: Rows) -> int:
    """The row of ``rows`` whose ``side`` (0: checkpoint, 1: module) covers ``name``, or -1."""
    for i, row in enumerate(rows):
        key = row[side]
        if name == key or (key.endswith(".") and name.startswith(key)):
            return i
    return -1


def _rename(name: str, src: int, rows: Rows) -> str:
    i = _match(name, src, rows)
    if i < 0:
        return name
    old, new = rows[i][src], rows[i][1 - src]
    return new + name[len(old) :]


def checkpoint_name(path: str, rows: Rows = CHECKPOINT_NAMES) -> str:
    """A module path's name in checkpoints of a model with table ``rows``
    (:func:`checkpoint_names`; a path outside the table keeps its name)."""
    return _rename(path, 1, rows)


def module_path(name: str, rows: Rows = CHECKPOINT_NAMES) -> str:
    """A checkpoint name's module path in a model with table ``rows`` (a name outside the table
    keeps its name)."""
    return _rename(name, 0, rows)


def rank(path: str, rows: Rows = CHECKPOINT_NAMES) -> int:
    """The place of module path ``path`` in the 0.1 parameter order (its row of ``rows``; paths
    outside the table after all rows)."""
    i = _match(path, 1, rows)
    return len(rows) if i < 0 else i


def _renamed(keys: list[str], prefix: str, rename: Any) -> list[str]:
    return [prefix + rename(k[len(prefix) :]) if k.startswith(prefix) else k for k in keys]


def keep_checkpoint_names(module: nn.Module, rows: Rows = CHECKPOINT_NAMES) -> None:
    """Make ``module.state_dict()`` give, and ``module.load_state_dict()`` take, the checkpoint
    names of table ``rows`` (:func:`checkpoint_names`; also where ``module`` is nested in another
    module: under its prefix).

    ``state_dict`` lists the tensors in the table's order; the missing and unexpected keys of
    ``load_state_dict`` (and its error message under ``strict``) are checkpoint names too.
    """
    loading: list[str] = []  # the prefix of the load in progress (for the post-hook)

    def save(mod: nn.Module, state: dict[str, Any], prefix: str, meta: Any) -> None:
        ours = [k for k in state if k.startswith(prefix)]
        items = [(k, state.pop(k)) for k in ours]
        items.sort(key=lambda kv: rank(kv[0][len(prefix) :], rows))  # stable
        for k, v in items:
            state[prefix + checkpoint_name(k[len(prefix) :], rows)] = v

    def load_pre(mod: nn.Module, state: dict[str, Any], prefix: str, *args: Any) -> None:
        loading[:] = [prefix]
        items = [(k, state.pop(k)) for k in [k for k in state if k.startswith(prefix)]]
        for k, v in items:
            state[prefix + module_path(k[len(prefix) :], rows)] = v

    def load_post(mod: nn.Module, incompatible: Any) -> None:
        prefix = loading[0] if loading else ""
        for keys in (incompatible.missing_keys, incompatible.unexpected_keys):
            keys[:] = _renamed(keys, prefix, lambda k: checkpoint_name(k, rows))

    register_save = getattr(module, "register_state_dict_post_hook", None)
    (register_save or module._register_state_dict_hook)(save)
    register_load = getattr(module, "register_load_state_dict_pre_hook", None)
    if register_load is not None:
        register_load(load_pre)
    else:  # torch < 2.5
        module._register_load_state_dict_pre_hook(load_pre, with_module=True)
    module.register_load_state_dict_post_hook(load_post)
