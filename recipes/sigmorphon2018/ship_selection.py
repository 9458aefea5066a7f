"""ship.py's selection: every candidate scored on the dev sets it serves, and the per-language
models chosen by gain per byte within the budget.

:func:`evaluate_model` scores an ensemble with beam search (beam 5, widened where the support is
not certified) on the full dev set of every language it serves, cached by the members'
SHA-256; :func:`heldout_scores` scores a medium model on the selection slice S of each noisy
language it serves (:func:`heldout.selection_slice`, cached the same way) and
:func:`with_selection` adds to its dev scores the score it is chosen by (:func:`selection_of`:
dev and S pooled there, dev alone elsewhere); :func:`hopeless` leaves out the queue models whose
training-time accuracy is far below; :func:`select_per_language` chooses; :func:`results_table`
and :func:`per_language_table` are the Markdown tables of the recipe README.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from heldout import Pair, pooled_accuracy, right_of, score_pairs
from ship_candidates import base_name, checkpoint_file, language_of

#: The criteria of ``--select-on``: dev alone, or dev and the selection slice S pooled where the
#: dev set is small and the language has a high setting (:func:`heldout.selection_slice`).
CRITERIA = ("dev", "dev+heldout")
#: The columns :func:`with_selection` adds to a model's per-language scores.
SELECTION_COLUMNS = ("heldout_words", "heldout_accuracy", "selection")


def members_digest(paths: list[Path]) -> list[str]:
    """SHA-256 of each member's checkpoint file, in ensemble order: what a cached score is for."""
    from inflect.io.atomic import sha256_of

    return [sha256_of(checkpoint_file(path)) for path in paths]


def evaluate_model(name: str, paths: list[Path], languages: list[str], args: argparse.Namespace):
    """Per-language dev scores of the ensemble, cached as ``results/NAME.csv`` beside
    ``results/NAME.members.json`` (the members' digests): a cache made for other members (a run
    that trained on, another ensemble) is scored again, never reused."""
    import pandas as pd

    from inflect.evaluation.runner import evaluate_checkpoints
    from inflect.evaluation.scoring import MACRO

    cache = Path(args.results) / f"{name}.csv"
    key_file = cache.with_suffix(".members.json")
    key = {"members": [str(p) for p in paths], "sha256": members_digest(paths)}
    if cache.is_file() and not args.rescore:
        cached_key = json.loads(key_file.read_text()) if key_file.is_file() else None
        if cached_key is not None and cached_key["sha256"] == key["sha256"]:
            print(f"{name}: cached scores ({cache})", flush=True)
            return pd.read_csv(cache)
        print(f"{name}: the cached scores in {cache} are for other members: scoring again",
              flush=True)
    frames = []
    for i, lang in enumerate(languages, 1):
        print(f"{name}: {lang} ({i}/{len(languages)})", flush=True)
        result = evaluate_checkpoints(
            [str(p) for p in paths], [lang], "dev", data_dir=args.data_dir, beam_size=5,
            device=args.device,
        )
        frames.append(result.frame[result.frame["language"] != MACRO])
    frame = pd.concat(frames, ignore_index=True)
    cache.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(cache, index=False)
    key_file.write_text(json.dumps(key, indent=1) + "\n")
    return frame


def slice_digest(pairs: list[Pair]) -> str:
    """SHA-256 of a slice's text (its lines as a gold file has them): what a cached S score is
    for, so a slice cut otherwise is scored again."""
    import hashlib

    text = "".join("\t".join(p) + "\n" for p in pairs)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def heldout_scores(name: str, paths: list[Path], slices: dict[str, list[Pair]],
                   args: argparse.Namespace) -> dict[str, tuple[int, int]]:
    """(right, words) of the ensemble on each language's selection slice S (``slices``: language
    -> S, :func:`heldout.selection_slice`), beam 5, the model alone
    (:func:`heldout.score_pairs`).

    Cached in ``results/NAME.heldout.csv`` (language, members' SHA-256, slice SHA-256
    (:func:`slice_digest`), right, words): a row is reused only for the same members and the
    same slice; the others are scored (``--rescore``: all of them) and the file rewritten
    atomically, its rows of other members kept.
    """
    import pandas as pd

    from inflect.io.atomic import atomic_write

    if not slices:
        return {}
    cache = Path(args.results) / f"{name}.heldout.csv"
    members = ",".join(members_digest(paths))
    columns = ["language", "sha256", "slice_sha256", "right", "words"]
    rows = pd.read_csv(cache, dtype={"sha256": str, "slice_sha256": str}).to_dict("records") \
        if cache.is_file() else []
    out: dict[str, tuple[int, int]] = {}
    fresh = []
    for lang, pairs in sorted(slices.items()):
        digest = slice_digest(pairs)
        hit = [r for r in rows if (r["language"], r["sha256"], r["slice_sha256"])
               == (lang, members, digest)]
        if hit and not args.rescore:
            out[lang] = (int(hit[-1]["right"]), int(hit[-1]["words"]))
            continue
        print(f"{name}: {lang}, the selection slice ({len(pairs)} words)", flush=True)
        out[lang] = score_pairs(paths, lang, pairs, args.device)
        fresh.append({"language": lang, "sha256": members, "slice_sha256": digest,
                      "right": out[lang][0], "words": out[lang][1]})
    if fresh:
        done = {(r["language"], r["sha256"], r["slice_sha256"]) for r in fresh}
        rows = [r for r in rows if (r["language"], r["sha256"], r["slice_sha256"]) not in done]
        frame = pd.DataFrame(rows + fresh, columns=columns)
        atomic_write(cache, lambda tmp: frame.to_csv(tmp, index=False))
    else:
        print(f"{name}: cached selection-slice scores ({cache})", flush=True)
    return out


def with_selection(frame, heldout: dict[str, tuple[int, int]], dev_words: dict[str, int]):
    """``frame`` (a model's per-language dev scores: language, accuracy, ...) with
    :data:`SELECTION_COLUMNS`: ``heldout_words`` (the words of S, 0 where the language has no
    S score), ``heldout_accuracy`` (percent on S, NaN where none) and ``selection`` (the score
    the model is chosen by on the language: where ``heldout`` has an S score (right, words),
    the accuracy on dev and S pooled (:func:`heldout.pooled_accuracy`, dev counted as
    ``dev_words[language]`` words); else the dev accuracy). A new frame.

    Raises:
        KeyError: a language with an S score and no dev size in ``dev_words``.
    """
    import math

    frame = frame.copy()
    words, acc, selection = [], [], []
    for lang, dev in zip(frame["language"], frame["accuracy"], strict=True):
        if lang in heldout:
            right, n = heldout[lang]
            words.append(n)
            acc.append(100.0 * right / n)
            n_dev = dev_words[lang]
            selection.append(pooled_accuracy((right_of(float(dev), n_dev), n_dev), (right, n)))
        else:
            words.append(0)
            acc.append(math.nan)
            selection.append(float(dev))
    frame["heldout_words"], frame["heldout_accuracy"], frame["selection"] = words, acc, selection
    return frame


def selection_of(frame):
    """The scores a model is chosen by, per row of its per-language scores: the ``selection``
    column (:func:`with_selection`) where there is one, else the dev ``accuracy``."""
    return frame["selection"] if "selection" in frame else frame["accuracy"]


def hopeless(greedy: dict[str, float], others: dict[str, Any], settings: dict[str, str],
             margin: float) -> list[str]:
    """The per-language models whose training-time dev accuracy (greedy) is more than
    ``margin`` points below the best other model of their setting on their language (beam 5):
    not worth the beam-5 scoring."""
    out = []
    for name, acc in greedy.items():
        lang, setting = base_name(name).rpartition("-")[0], base_name(name).rpartition("-")[2]
        best = max((float(frame.loc[frame["language"] == lang, "accuracy"].max())
                    for n, frame in others.items()
                    if settings.get(n) == setting and (frame["language"] == lang).any()),
                   default=-1.0)
        if acc < best - margin:
            out.append(name)
    return out


def select_per_language(scores: dict[str, Any], settings: dict[str, str],
                        sizes: dict[str, int], per_language: set[str], budget: float,
                        floors: dict[tuple[str, str], float] | None = None,
                        targets: dict[str, float] | None = None,
                        first: set[str] | None = None,
                        ) -> tuple[list[str], list[str]]:
    """Which per-language models to ship, and which other models no language needs.

    Each model's scores are a frame of language and dev ``accuracy``, and optionally the
    ``selection`` score it is chosen by (:func:`with_selection`: dev and the selection slice
    pooled for a medium language of a small dev set; :func:`selection_of`); without that column
    the dev accuracy is both. The choice between the models of a language uses the selection
    score; the official baseline and the macro targets are dev figures (the README's).

    A per-language model ``LANG-SETTING`` is a candidate when its selection score on LANG beats
    every other model of its setting that serves LANG. A language may have several candidates
    (the same model stored in int8 and in 4 bits: ``--int4``); at most one of them ships. The
    candidates are taken one at a time, each time the one of the largest gain (selection score)
    per byte over what serves its language so far (a language's other candidate, once taken, is
    replaced: the gain and the bytes are the difference), while the total size of the shipped
    weights stays within ``budget`` (bytes; the non-per-language models count first). First
    come the candidates that lift LANG's dev accuracy from below its floor
    (``floors[LANG, SETTING]``: the official baseline) to at or above it, one per language.
    With ``targets`` (``{SETTING: macro}``, e.g. a medium macro of 80), the candidates of such a
    setting come next until the setting's macro dev accuracy (the mean over its languages of
    the dev accuracy of the model that serves each: the best by selection score) reaches the
    target; the others follow. With ``first`` (per-language model names, ``LANG-SETTING``: a
    language the product answers first, e.g. French), one candidate of each such language, the
    one of the largest gain per byte that fits, is taken right after the lifts. Then a model that is the best of its setting (selection score)
    for no language is dropped (e.g. a language's own model that a new per-language model
    beats). Returns (the chosen per-language models, the dropped other models)."""
    acc = {name: dict(zip(frame["language"], selection_of(frame), strict=True))
           for name, frame in scores.items()}
    dev = {name: dict(zip(frame["language"], frame["accuracy"], strict=True))
           for name, frame in scores.items()}
    pick = _Selection(acc, dev, settings, sizes, per_language, budget)
    candidates = [n for n in per_language if pick.own(n) > pick.others.get(pick.key_of(n), -1.0)]
    lifts = set()
    for name in candidates:
        floor = (floors or {}).get(pick.key_of(name))
        if floor is not None and pick.serving_dev(pick.key_of(name)) < floor <= dev[name][
                language_of(name)]:
            lifts.add(name)
    while pick.take_best([n for n in lifts if pick.key_of(n) not in pick.held]):
        pass
    for wanted in sorted(first or ()):
        pick.take_best([n for n in candidates if base_name(n) == wanted
                        and pick.key_of(n) not in pick.held])
    for setting, target in (targets or {}).items():
        keys = sorted({(lang, setting) for n, a in acc.items() if settings[n] == setting
                       for lang in a})
        pool = [n for n in candidates if settings[n] == setting]
        while (sum(pick.serving_dev(key) for key in keys) / len(keys) < target
               and pick.take_best(pool)):
            pass
    while pick.take_best(candidates):
        pass
    chosen = set(pick.held.values())

    def best_without(lang: str, setting: str, exclude: str) -> float:
        return max((a[lang] for n, a in acc.items() if n != exclude and lang in a
                    and settings[n] == setting and (n not in per_language or n in chosen)),
                   default=-1.0)

    dropped = [name for name, a in acc.items() if name not in per_language and not any(
        value >= best_without(lang, settings[name], name) for lang, value in a.items())]
    return sorted(chosen), dropped


class _Selection:
    """The state of :func:`select_per_language`: the per-language model taken for each
    language so far (``held``) and the bytes shipped (``total``).

    Args:
        acc: model -> language -> selection score (:func:`selection_of`).
        dev: model -> language -> dev accuracy.
        settings, sizes, per_language, budget: as :func:`select_per_language`.
    """

    def __init__(self, acc: dict[str, dict[str, float]], dev: dict[str, dict[str, float]],
                 settings: dict[str, str], sizes: dict[str, int], per_language: set[str],
                 budget: float) -> None:
        self.acc, self.dev, self.settings, self.sizes, self.budget = (acc, dev, settings, sizes,
                                                                      budget)
        #: the best other model of each language's setting (by selection score: the first of
        #: the best), and its scores
        self.others: dict[tuple[str, str], float] = {}
        self.others_dev: dict[tuple[str, str], float] = {}
        for name, a in acc.items():
            if name not in per_language:
                for lang, value in a.items():
                    key = (lang, settings[name])
                    if value > self.others.get(key, -1.0):
                        self.others[key], self.others_dev[key] = value, dev[name][lang]
        self.held: dict[tuple[str, str], str] = {}
        self.total = sum(size for name, size in sizes.items() if name not in per_language)

    def key_of(self, name: str) -> tuple[str, str]:
        return language_of(name), self.settings[name]

    def serving(self, key: tuple[str, str]) -> float:
        """The selection score of what serves language and setting ``key`` so far (a taken
        candidate beats the others)."""
        taken = self.held.get(key)
        return self.acc[taken][key[0]] if taken else self.others.get(key, -1.0)

    def serving_dev(self, key: tuple[str, str]) -> float:
        """The dev accuracy of what serves language and setting ``key`` so far."""
        taken = self.held.get(key)
        return self.dev[taken][key[0]] if taken else self.others_dev.get(key, -1.0)

    def own(self, name: str) -> float:
        """A per-language model's selection score on its language."""
        return self.acc[name][language_of(name)]

    def step(self, name: str) -> tuple[float, int]:
        """The gain (selection points on its language) and the bytes of taking ``name`` now."""
        key = self.key_of(name)
        taken = self.held.get(key)
        return self.own(name) - self.serving(key), self.sizes[name] - (
            self.sizes[taken] if taken else 0)

    def take_best(self, pool: list[str]) -> bool:
        """Take the candidate of ``pool`` of the largest gain per byte that fits."""
        options = []
        for name in pool:
            gain, extra = self.step(name)
            if (self.held.get(self.key_of(name)) != name and gain > 0
                    and self.total + extra <= self.budget):
                options.append((gain / extra if extra > 0 else float("inf"), name))
        if not options:
            return False
        name = max(options)[1]
        self.total += self.step(name)[1]
        self.held[self.key_of(name)] = name
        return True


def settle_variants(chosen: list[str], *tables: dict[str, Any]) -> None:
    """In each table (name -> anything), the variants (``NAME~...``: :data:`ship_candidates.INT4_VARIANT`,
    an ensemble's :data:`ship_candidates.ENSEMBLE_VARIANT`) settled: a chosen one takes its model's own name
    (replacing another variant's entry), the others are removed."""
    for table in tables:
        for name in [n for n in table if base_name(n) != n]:
            value = table.pop(name)
            if name in chosen:
                table[base_name(name)] = value


def results_table(frame, baseline, setting: str) -> str:
    """Per-language dev accuracy beside the official baseline, with certificate shares."""
    base = {}
    if baseline is not None:
        b = baseline[baseline["setting"] == setting]
        base = dict(zip(b["language"], b["accuracy"], strict=True))
    lines = [
        "| language | dev accuracy | baseline | ≥ baseline | full support | mode only | "
        "one form | forms per input |",
        "|---|---:|---:|:-:|---:|---:|---:|---:|",
    ]
    rows = frame.sort_values("language")
    at_or_above = 0
    for row in rows.itertuples():
        b = base.get(row.language)
        ok = b is not None and row.accuracy >= b
        at_or_above += ok
        lines.append(
            f"| {row.language} | {row.accuracy:.1f} | {'—' if b is None else f'{b:.1f}'} | "
            f"{'yes' if ok else ('no' if b is not None else '—')} | "
            f"{100 * row.full_support:.1f} | {100 * row.mode_only:.1f} | "
            f"{100 * row.single_string:.1f} | {row.mean_strings:.2f} |"
        )
    with_base = [r for r in rows.itertuples() if r.language in base]
    macro_base = sum(base[r.language] for r in with_base) / max(1, len(with_base))
    lines.append(
        f"| **macro-average ({len(rows)})** | **{rows['accuracy'].mean():.1f}** | "
        f"{macro_base:.1f} | {at_or_above} of {len(with_base)} | "
        f"{100 * rows['full_support'].mean():.1f} | {100 * rows['mode_only'].mean():.1f} | "
        f"{100 * rows['single_string'].mean():.1f} | {rows['mean_strings'].mean():.2f} |"
    )
    return "\n".join(lines) + "\n"


def per_language_table(setting: str, scores: dict[str, Any], settings: dict[str, str],
                       per_language: set[str], shipped: set[str], queues: list[str],
                       baseline: Any, data_dir: str | None = None) -> str:
    """Per language of ``setting``: the official baseline, the best model of the setting that is
    not a per-language one ("before": the multilingual ensemble, or German's own), the
    language's own model (beam 5 where scored; the training-time greedy figure in brackets
    where not; else its queue state: queued, training, interrupted, failed), its CPU minutes,
    and the model that now serves it (the shipped one of the best selection score,
    :func:`selection_of`) with its dev accuracy, beside the 2018 winner's test accuracy (an
    anchor, not a dev figure); with macro-averages and the CPU hours of the queues."""
    from inflect.corpora.baseline import system_accuracy
    from inflect.training.queue import QueueSpec, queue_status

    winner = system_accuracy(setting, data_dir=data_dir)
    acc = {n: dict(zip(f["language"], f["accuracy"], strict=True)) for n, f in scores.items()}
    chosen_by = {n: dict(zip(f["language"], selection_of(f), strict=True))
                 for n, f in scores.items()}
    status, cpu_seconds = {}, {}  # a language's CPU time: its runs in every queue together
    for spec in dict.fromkeys(queues):  # a queue named twice (alone, in an ensemble) counts once
        queue_setting, _, root = spec.partition("=")
        if queue_setting == setting and QueueSpec.load(Path(root)).setting == setting:
            for st in queue_status(root):
                status[st.language] = st
                cpu_seconds[st.language] = cpu_seconds.get(st.language, 0) + (st.cpu_seconds or 0)
    base = {}  # none where the data folder has no baseline table
    if baseline is not None:
        b = baseline[baseline["setting"] == setting]
        base = dict(zip(b["language"], b["accuracy"], strict=True))
    others = [n for n in acc if settings[n] == setting and n not in per_language]
    languages = sorted({lang for n in others for lang in acc[n]})
    lines = [
        "| language | baseline | before | per-language | CPU min | shipped | model "
        "| 2018 winner (test) |",
        "|---|---:|---:|---:|---:|---:|---|---:|",
    ]
    cols: dict[str, list[float]] = {"baseline": [], "multi": [], "shipped": []}
    above = 0
    for lang in languages:
        multi = max(acc[n][lang] for n in others if lang in acc[n])
        own_name = f"{lang}-{setting}"
        own = acc.get(own_name, {}).get(lang) if own_name in per_language else None
        st = status.get(lang)
        if own is not None:
            own_text = f"{own:.1f}"
        elif st is not None and st.best_accuracy is not None and st.state == "finished":
            own_text = f"({st.best_accuracy:.1f})"
        else:
            own_text = "—" if st is None else {"new": "queued", "running": "training"}.get(
                st.state, st.state)
        serving = [n for n in acc if lang in acc[n] and settings[n] == setting
                   and n in shipped]
        if not serving:
            continue
        best = max(serving, key=lambda n: chosen_by[n][lang])  # the one chosen: its dev figure
        b = base.get(lang)
        cols["multi"].append(multi)
        cols["shipped"].append(acc[best][lang])
        if b is not None:
            cols["baseline"].append(b)
            above += acc[best][lang] >= b
        cpu = f"{cpu_seconds[lang] / 60:.1f}" if cpu_seconds.get(lang) else ""
        lines.append(f"| {lang} | {'—' if b is None else f'{b:.1f}'} | {multi:.1f} | "
                     f"{own_text} | {cpu} | {acc[best][lang]:.1f} | {best} | "
                     + (f"{winner[lang]:.1f} |" if lang in winner else "— |"))
    hours = sum(cpu_seconds.values()) / 3600

    def mean(xs: list[float]) -> float:
        return sum(xs) / max(1, len(xs))

    lines.append(f"| **macro ({len(languages)})** | {mean(cols['baseline']):.1f} | "
                 f"{mean(cols['multi']):.1f} | | {hours:.1f} h | **{mean(cols['shipped']):.1f}** "
                 f"| {above} of {len(cols['baseline'])} at or above the baseline | "
                 + (f"{sum(winner.get(x, 0) for x in languages) / len(languages):.1f} |"
                    if winner and all(x in winner for x in languages) else " |"))
    return "\n".join(lines) + "\n"
