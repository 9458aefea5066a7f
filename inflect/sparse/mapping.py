"""An output or attention mapping as an object: :class:`Mapping`, chosen by name.

A config names a mapping (``"softmax"``, ``"sparsemax"``, ``"entmax15"``, ``"entmax:<α>"``, or a
number, the α); :func:`get_mapping` turns the name into a :class:`Mapping`, which maps scores to
probabilities (:meth:`Mapping.forward`), gives the Fenchel–Young loss of that mapping
(:meth:`Mapping.loss`) and says whether it can give exact zeros (:attr:`Mapping.is_sparse`), so
callers ask the object instead of comparing α with 1. Every α-entmax is an
:class:`EntmaxMapping`; a mapping outside the α family (a softmax with a temperature, a top-k
sparsemax, ...) is one subclass of :class:`Mapping` plus one :func:`register_mapping` call.

Sources: Peters, Niculae & Martins (2019), "Sparse Sequence-to-Sequence Models" (ACL), sections
2-3; Blondel, Martins & Niculae (2020), "Learning with Fenchel-Young Losses" (JMLR).
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import torch

from inflect.sparse import _common as C
from inflect.sparse.dispatch import entmax
from inflect.sparse.losses import entmax_loss


class Mapping(abc.ABC):
    """A mapping from scores to probabilities, with its Fenchel–Young loss.

    Subclasses are immutable and hashable (frozen dataclasses) and provide:

    Attributes:
        name: the canonical name, which :func:`get_mapping` maps back to an equal mapping
            (e.g. ``"entmax15"``, ``"entmax:1.3"``).
        alpha: the α of an α-entmax (a float), or ``None`` for a mapping outside that family.
        is_sparse: whether the mapping can give exact zeros (α-entmax: α > 1).
    """

    __slots__ = ()

    name: str
    alpha: float | None
    is_sparse: bool

    @abc.abstractmethod
    def forward(self, scores: torch.Tensor, dim: int = -1) -> torch.Tensor:
        """Probabilities of ``scores`` along ``dim``.

        Args:
            scores: floating tensor of any shape; ``-inf`` = masked (probability exactly 0).
            dim: the dimension holding the distribution (negative allowed).

        Returns:
            Probabilities, ``scores``' shape and dtype, summing to 1 along ``dim`` (all zeros
            for a fully ``-inf`` row).
        """

    @abc.abstractmethod
    def loss(
        self,
        scores: torch.Tensor,
        target: torch.Tensor,
        ignore_index: int = -100,
        reduction: str = "mean",
    ) -> torch.Tensor:
        """The Fenchel–Young loss of this mapping.

        Args:
            scores: logits ``(..., C)``, floating; ``-inf`` = masked class.
            target: integer class indices ``(...)``, in ``[0, C)`` or ``ignore_index``.
            ignore_index: target value that contributes 0 (default -100).
            reduction: ``"none"``, ``"sum"`` or ``"mean"`` (over the non-ignored targets), as
                ``torch.nn.functional.cross_entropy``.

        Returns:
            The loss in ``scores``' dtype, shape ``(...)`` for ``"none"``, else 0-d.
        """

    def __str__(self) -> str:
        return self.name


#: canonical name of each α that has one (the inverse of ``ALPHA_BY_NAME``)
_NAME_BY_ALPHA = {alpha: name for name, alpha in C.ALPHA_BY_NAME.items()}


@dataclass(frozen=True)
class EntmaxMapping(Mapping):
    """α-entmax (Peters, Niculae & Martins 2019, eq. 5) and its Fenchel–Young loss.

    α = 1 is softmax, α = 1.5 1.5-entmax, α = 2 sparsemax, each by its exact algorithm; any other
    α by root finding (:func:`inflect.sparse.entmax`, :func:`inflect.sparse.entmax_loss`: the
    same operations, bit for bit).

    Args:
        alpha: α, a real number, finite and > 0 (stored as a float).

    Raises:
        ValueError: α not a real number, not finite, or not > 0 (a tensor α, e.g. a learned one,
            is :func:`inflect.sparse.entmax`'s, not a mapping's).
    """

    alpha: float

    def __post_init__(self) -> None:
        if isinstance(self.alpha, torch.Tensor):
            raise ValueError(
                "a Mapping's alpha is a number; for a tensor α use inflect.sparse.entmax(x, α)"
            )
        object.__setattr__(self, "alpha", C.check_alpha(self.alpha))

    @property
    def name(self) -> str:
        return _NAME_BY_ALPHA.get(self.alpha) or f"entmax:{self.alpha!r}"

    @property
    def is_sparse(self) -> bool:
        return self.alpha > 1.0

    def forward(self, scores: torch.Tensor, dim: int = -1) -> torch.Tensor:
        """α-entmax of ``scores`` along ``dim``: :func:`inflect.sparse.entmax` (same errors)."""
        return entmax(scores, self.alpha, dim=dim)

    def loss(
        self,
        scores: torch.Tensor,
        target: torch.Tensor,
        ignore_index: int = -100,
        reduction: str = "mean",
    ) -> torch.Tensor:
        """The α-entmax loss: :func:`inflect.sparse.entmax_loss` (same arguments and errors)."""
        return entmax_loss(scores, target, self.alpha, ignore_index, reduction)


class _Entry(NamedTuple):
    factory: Callable[..., Mapping]
    parameter: str | None


_REGISTRY: dict[str, _Entry] = {}


def register_mapping(
    name: str, factory: Callable[..., Mapping], *, parameter: str | None = None
) -> None:
    """Make :func:`get_mapping` know a mapping name.

    Args:
        name: lower case, without ``":"``, not a number; must not be registered yet.
        factory: without ``parameter``, called with no argument for ``name``; with it, called
            with the text after the colon of ``"name:<text>"`` (stripped, lower case). It returns
            a :class:`Mapping` and raises ``ValueError`` for a text it does not accept.
        parameter: the parameter's name shown in error messages (``"entmax:<alpha>"``), or
            ``None`` for a name that takes none.

    Raises:
        ValueError: a malformed or already registered name; TypeError: ``factory`` not callable.
    """
    if not isinstance(name, str) or not name or name != name.strip().lower() or ":" in name:
        raise ValueError(f"a mapping name is lower case, without ':' or spaces, got {name!r}")
    try:
        float(name)
    except ValueError:
        pass
    else:
        raise ValueError(f"a mapping name must not be a number (numbers are α), got {name!r}")
    if name in _REGISTRY:
        raise ValueError(f"mapping {name!r} is already registered")
    if not callable(factory):
        raise TypeError(f"factory of mapping {name!r} must be callable, got {factory!r}")
    _REGISTRY[name] = _Entry(factory, parameter)


def mapping_names() -> tuple[str, ...]:
    """The registered names, in registration order, parametric ones as ``"entmax:<alpha>"``
    (any number, the α, is a name too)."""
    return tuple(
        name if entry.parameter is None else f"{name}:<{entry.parameter}>"
        for name, entry in _REGISTRY.items()
    )


def _unknown(name: object, why: str = "") -> ValueError:
    known = ", ".join(mapping_names())
    return ValueError(f"unknown mapping {name!r}{why}: use {known} or a number")


def get_mapping(name: str | float | Mapping) -> Mapping:
    """The mapping of a name used in configs and on the command line.

    ``"softmax"``, ``"sparsemax"``, ``"entmax15"``, ``"entmax:<α>"``, any other registered name
    (:func:`register_mapping`), or a number (a string or a real number): the α-entmax of that α.
    Names are case-insensitive, spaces around are ignored; a :class:`Mapping` is returned as is.

    Raises:
        ValueError: an unknown name (the message lists the known ones), a parameter its
            mapping refuses (``"entmax:abc"``), or α not finite and > 0.
    """
    if isinstance(name, Mapping):
        return name
    if isinstance(name, bool) or not isinstance(name, str | int | float):
        raise ValueError(f"not a mapping name or α: {name!r}")
    if isinstance(name, str):
        key = name.strip().lower()
        family, colon, text = key.partition(":")
        entry = _REGISTRY.get(family)
        if entry is not None and bool(colon) == (entry.parameter is not None):
            try:
                mapping = entry.factory(text.strip()) if colon else entry.factory()
            except ValueError as exc:
                raise _unknown(name, f" ({exc})") from None
            if not isinstance(mapping, Mapping):
                raise TypeError(f"factory of mapping {family!r} returned {mapping!r}, not a Mapping")
            return mapping
        try:
            value = float(key)
        except ValueError:
            raise _unknown(name) from None
    else:
        value = float(name)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"α must be finite and > 0, got {name!r}")
    return EntmaxMapping(value)


def mapping_alpha(name: str | float | Mapping) -> float:
    """The α of a mapping name (:func:`get_mapping`): ``"softmax"`` -> 1.0, ``"entmax15"`` ->
    1.5, ``"sparsemax"`` -> 2.0, ``"entmax:<a>"`` or a number -> that number.

    Raises:
        ValueError: the errors of :func:`get_mapping`, or a mapping that is not an α-entmax.
    """
    mapping = get_mapping(name)
    if mapping.alpha is None:
        raise ValueError(f"mapping {mapping.name!r} is not an α-entmax: it has no α")
    return mapping.alpha


def _entmax_of(text: str) -> EntmaxMapping:
    """``"entmax:<text>"``: the α-entmax of the number ``text``."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"α must be a number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"α must be finite and > 0, got {text!r}")
    return EntmaxMapping(value)


for _name, _alpha in C.ALPHA_BY_NAME.items():
    register_mapping(_name, lambda a=_alpha: EntmaxMapping(a))
register_mapping("entmax", _entmax_of, parameter="alpha")
del _name, _alpha
