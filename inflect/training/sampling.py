"""Which training rows an epoch sees, in which batches: language shares, draws, and batches of
similar length, all from a :class:`torch.Generator` seeded by the run's seed and the epoch (never
the global generator, which is dropout's: :func:`dropout_seed`).

An epoch's batches are a function of the seed and the epoch only, so that a resumed run, and
every process of a data-parallel one, computes the same ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from inflect import defaults
from inflect.training.items import Item

__all__ = [
    "EpochSampler",
    "draw",
    "dropout_seed",
    "epoch_seed",
    "every_process_a_share",
    "language_shares",
    "shuffled_batches",
]

_SEEDS = 2**63 - 1


def epoch_seed(seed: int, epoch: int) -> int:
    """The seed of epoch ``epoch`` of a run of seed ``seed`` (a fixed hash of the two)."""
    return (seed * 1_000_003 + epoch * 7_919 + 17) % _SEEDS


def dropout_seed(seed: int, epoch: int, rank: int = 0) -> int:
    """The seed of the global generator (dropout masks) for ``epoch`` in process ``rank`` (each
    process of a data-parallel run draws its own masks; rank 0's is a plain run's)."""
    return (epoch_seed(seed, epoch) + 104_729 * rank) % _SEEDS


def draw(n_items: int, n: int, generator: torch.Generator) -> list[int]:
    """``n`` indices of ``range(n_items)``: random permutations, one after the other, cut at n."""
    out: list[int] = []
    while len(out) < n and n_items:
        out += torch.randperm(n_items, generator=generator).tolist()[: n - len(out)]
    return out


def language_shares(counts: dict[Any, int], temperature: float) -> dict[Any, int]:
    """Items per language in one epoch: ``N · n_l^(1/T) / Σ_k n_k^(1/T)``, rounded so that the
    total is N (the largest remainders get the extra items); T = 1 keeps each ``n_l``."""
    total = sum(counts.values())
    if temperature == 1.0 or len(counts) < 2:
        return dict(counts)
    weights = {k: n ** (1.0 / temperature) for k, n in counts.items()}
    norm = sum(weights.values())
    exact = {k: total * w / norm for k, w in weights.items()}
    shares = {k: math.floor(v) for k, v in exact.items()}
    for k in sorted(exact, key=lambda k: shares[k] - exact[k])[: total - sum(shares.values())]:
        shares[k] += 1
    return shares


def shuffled_batches(
    lengths: Sequence[int],
    batch_size: int,
    generator: torch.Generator,
    pool: int = defaults.LENGTH_POOL_BATCHES,
) -> list[list[int]]:
    """Random batches of similar target length (fewer padded decoder steps).

    A random permutation of ``range(len(lengths))`` is cut into pools of ``pool`` batches; each
    pool is sorted by length and cut into batches; the batches are then shuffled. Deterministic
    given ``generator``.
    """
    perm = torch.randperm(len(lengths), generator=generator).tolist()
    size = batch_size * pool
    batches: list[list[int]] = []
    for start in range(0, len(perm), size):
        chunk = sorted(perm[start : start + size], key=lambda i: lengths[i])
        batches += [chunk[j : j + batch_size] for j in range(0, len(chunk), batch_size)]
    order = torch.randperm(len(batches), generator=generator).tolist()
    return [batches[i] for i in order]


def every_process_a_share(batches: list[list[int]], processes: int) -> list[list[int]]:
    """``batches`` with the rows of each batch of fewer rows than ``processes`` moved to the
    last batch that has enough, so that every process has rows in every update."""
    out: list[list[int]] = []
    small: list[int] = []
    for b in batches:
        if len(b) < processes:
            small += b
        else:
            out.append(b)
    if small and out:
        out[-1] = out[-1] + small
    elif small:
        out = [small]
    return out


@dataclass(frozen=True)
class EpochSampler:
    """The epochs of a run over ``train`` items and ``copies`` autoencoding items (rows
    ``0 .. len(train) - 1`` and ``len(train) ..`` of the run's encoded items).

    Attributes:
        seed: the run's seed (``TrainConfig.seed``).
        by_language: the rows of each language's training items.
        shares: the training items each language has in an epoch (:func:`language_shares`).
        copies: autoencoding items in the pool (``TrainConfig.copy_examples``).
        n_copy: autoencoding items drawn per epoch.
        lengths: the target length of every row.
    """

    seed: int
    by_language: dict[Any, list[int]]
    shares: dict[Any, int]
    copies: int
    n_copy: int
    lengths: list[int]

    @classmethod
    def of(cls, train: Sequence[Item], copies: Sequence[Item], n_copy: int,
           temperature: float, seed: int) -> EpochSampler:
        """The sampler of ``train`` items, ``n_copy`` of the ``copies`` per epoch, languages
        shared at ``temperature`` (``TrainConfig.language_temperature``)."""
        by_language: dict[Any, list[int]] = {}
        for i, it in enumerate(train):
            by_language.setdefault(it.language, []).append(i)
        shares = language_shares({k: len(v) for k, v in by_language.items()}, temperature)
        lengths = [len(it.target) for it in train] + [len(it.target) for it in copies]
        return cls(seed, by_language, shares, len(copies), n_copy, lengths)

    @property
    def items_per_epoch(self) -> int:
        """Rows of one epoch: the languages' shares and the autoencoding items drawn."""
        return sum(self.shares.values()) + self.n_copy

    def batches(self, epoch: int, update_size: int, processes: int = 1) -> list[list[int]]:
        """The batches of ``epoch`` (rows), a function of the seed and the epoch only.

        A batch holds ``update_size`` rows (the last of a pool fewer); with several
        ``processes``, no batch has fewer rows than processes (see
        :func:`every_process_a_share`)."""
        gen = torch.Generator().manual_seed(epoch_seed(self.seed, epoch) + 1)
        rows: list[int] = []
        for lang in sorted(self.by_language, key=lambda x: x or ""):
            own = self.by_language[lang]
            share = self.shares[lang]
            rows += own if share == len(own) else [own[i] for i in draw(len(own), share, gen)]
        offset = len(self.lengths) - self.copies
        rows += [offset + i for i in draw(self.copies, self.n_copy, gen)]
        batches = shuffled_batches([self.lengths[r] for r in rows], update_size, gen)
        if processes > 1:
            batches = every_process_a_share(batches, processes)
        return [[rows[i] for i in b] for b in batches]
