"""The held-out slices of ``train-high`` by which medium models are chosen.

A medium language's dev set of 50-100 words is a noisy judge: among several candidates, the one
that wins it is in part the one that was lucky on those words, so its dev figure is optimistic.
The medium training set is a subset of the high one (every ``train-medium`` pair is in
``train-high``), so for a language with a high setting the pairs of ``train-high`` whose lemma
and tag bundle are in neither ``train-medium`` nor dev are words no medium model has seen.
:func:`heldout_slices` cuts them, seeded, into a selection slice S and a held-out slice H;
``selection_study.py`` measures with both, and ``ship.py`` chooses among the medium candidates
of a language by their accuracy on dev and S pooled (:func:`selection_slice`,
:func:`pooled_accuracy`). Both scripts take the slices from here, so they cannot drift apart.

The files are read as the shared task wrote them (``lemma<TAB>form<TAB>tags``, UTF-8), without
any normalisation, so that S is the same words however the package's readers change.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

#: The dev sets with fewer words than this are the noisy ones.
SMALL_DEV = 200
#: The most words of the selection slice S (a third of the unseen pairs where fewer).
SELECTION_MAX = 500
#: The most words of the held-out slice H (the study's; ``ship.py`` does not use H).
HELDOUT_MAX = 1000
#: The seed of the shuffle (with the language's name: ``"1-breton"``).
SEED = 1

Pair = tuple[str, str, str]


def read_pairs(path: str | os.PathLike[str]) -> list[Pair]:
    """``(lemma, form, tags)`` per non-blank line of a 2018 file (UTF-8), as written.

    Raises:
        ValueError: a line that is not three tab-separated fields (names the file and line).
        FileNotFoundError: no such file.
    """
    out = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            fields = tuple(line.rstrip("\n").split("\t"))
            if len(fields) != 3:
                raise ValueError(
                    f"{path}:{number}: expected lemma<TAB>form<TAB>tags, got {line.rstrip()!r}"
                )
            out.append(fields)
    return out


def split_file(lang: str, split: str, data_dir: str | os.PathLike[str] | None) -> Path:
    """The file of ``lang``'s ``split`` (``"dev"``, ``"train-high"``, ...) in the data folder
    (:func:`inflect.corpora.manifests.locate`: ``data_dir`` or its ``conll2018-task1``)."""
    from inflect.corpora.manifests import locate

    return locate(lang, split, data_dir)


def has_high_setting(lang: str) -> bool:
    """Whether the shared task gave ``lang`` a high setting (a ``train-high`` file)."""
    from inflect.text.languages import resolve

    return "high" in resolve(lang).settings


def dev_words(lang: str, data_dir: str | os.PathLike[str] | None = None) -> int:
    """The number of words (lines) of ``lang``'s dev file."""
    return len(read_pairs(split_file(lang, "dev", data_dir)))


def heldout_slices(
    lang: str,
    data_dir: str | os.PathLike[str] | None = None,
    s_max: int = SELECTION_MAX,
    h_max: int = HELDOUT_MAX,
    seed: int = SEED,
) -> tuple[list[Pair], list[Pair]] | None:
    """S and H of ``lang``: the pairs of ``train-high`` whose (lemma, tags) are neither in
    ``train-medium`` nor in dev (the first of each such key, in file order), shuffled with
    ``random.Random(f"{seed}-{lang}")``, cut into S (a third of them, at most ``s_max``) and H
    (the rest, at most ``h_max``); None where the language has no high setting.

    Raises:
        FileNotFoundError: a file of a language that has a high setting is missing (the message
            says where it was looked for).
    """
    if not has_high_setting(lang):
        return None
    seen = {
        (p[0], p[2])
        for split in ("train-medium", "dev")
        for p in read_pairs(split_file(lang, split, data_dir))
    }
    pool, keys = [], set()
    for pair in read_pairs(split_file(lang, "train-high", data_dir)):
        key = (pair[0], pair[2])
        if key not in seen and key not in keys:
            keys.add(key)
            pool.append(pair)
    random.Random(f"{seed}-{lang}").shuffle(pool)
    n_s = min(s_max, len(pool) // 3)
    return pool[:n_s], pool[n_s : n_s + h_max]


def selection_slice(
    lang: str,
    data_dir: str | os.PathLike[str] | None = None,
) -> list[Pair] | None:
    """S of a medium language whose dev set has fewer than :data:`SMALL_DEV` words and that has
    a high setting (seed :data:`SEED`, at most :data:`SELECTION_MAX` pairs); None for the
    others (a larger dev set, or no high setting: dev alone judges)."""
    if not has_high_setting(lang) or dev_words(lang, data_dir) >= SMALL_DEV:
        return None
    slices = heldout_slices(lang, data_dir)
    return slices[0] if slices and slices[0] else None


def right_of(accuracy: float, words: int) -> int:
    """The number of exact matches of an accuracy (percent) on ``words`` words."""
    return round(accuracy * words / 100)


def pooled_accuracy(*parts: tuple[int, int]) -> float:
    """The accuracy (percent) of several sets of words counted together: each part is
    ``(right, words)``; 100 * sum(right) / sum(words).

    Raises:
        ValueError: no words at all.
    """
    words = sum(n for _, n in parts)
    if words <= 0:
        raise ValueError("pooled accuracy of no words")
    return 100.0 * sum(r for r, _ in parts) / words


def score_pairs(
    members: list[str | os.PathLike[str]], lang: str, pairs: list[Pair], device: str = "cpu"
) -> tuple[int, int]:
    """(right, words) of the ensemble of ``members`` on ``pairs`` of ``lang``: beam 5 (widened
    where the support is not certified), the model alone
    (:func:`inflect.evaluation.runner.evaluate_checkpoints` on a gold file of the pairs)."""
    import tempfile

    from inflect.evaluation.runner import evaluate_checkpoints

    with tempfile.TemporaryDirectory(prefix="heldout-") as tmp:
        gold = Path(tmp) / f"{lang}-slice"
        gold.write_text("".join("\t".join(p) + "\n" for p in pairs), encoding="utf-8")
        result = evaluate_checkpoints(
            [str(m) for m in members], [lang], gold_files=[gold], beam_size=5, device=device
        )
    row = result.frame[result.frame["language"] == lang].iloc[0]
    return right_of(float(row["accuracy"]), len(pairs)), len(pairs)
