"""How much of the medium setting's drop from dev to unseen data a less noisy selection removes
(the recipe README, "Selection that holds on unseen data").

A medium language's dev set of 50-100 words is a noisy judge: the model that wins it among
several candidates is, in part, the one that was lucky on those words, so its dev figure is
optimistic (the winner's curse). The medium training set is a subset of the high one (every
``train-medium`` pair is in ``train-high``), so for the languages that have a high setting the
pairs of ``train-high`` not in ``train-medium`` are words no medium model has seen: a split of
train, not the test files. This script splits them (seeded) into a selection slice S and a
held-out slice H, scores every shipped medium candidate of a language (each model that the
registry lists for it, and each member of an ensemble alone) on dev, S and H with beam 5, and
compares two criteria for choosing among them:

- ``dev``: the highest dev accuracy (ship.py's rule until now);
- ``dev+S``: the highest accuracy on dev and S pooled (the words of both counted together).

For each criterion it reports the chosen models' macro figure on the data that chose them, their
macro accuracy on H (unseen by both the models and the choice), and the drop between the two.

    python recipes/sigmorphon2018/selection_study.py --data-dir ../shared/data \\
        --out runs/selection-study            # the table: OUT/selection.md, OUT/scores.csv

Scores are cached in ``OUT/scores.csv`` (one row per candidate, language and slice), so a
second run only tabulates.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

from heldout import (
    HELDOUT_MAX,
    SEED,
    SELECTION_MAX,
    SMALL_DEV,
    heldout_slices,
    pooled_accuracy,
    read_pairs,
    score_pairs,
)

MODELS = Path(__file__).resolve().parents[2] / "inflect" / "models"


def candidates(registry: dict, lang: str) -> dict[str, list[Path]]:
    """The shipped medium models serving ``lang``: name -> member files; an ensemble's members
    also alone (``NAME~memberK``)."""
    out: dict[str, list[Path]] = {}
    for name in registry["language"].get(lang, {}):
        entry = registry["model"][name]
        if entry.get("setting") != "medium":
            continue
        members = [MODELS / m for m in entry["members"]]
        out[name] = members
        if len(members) > 1:
            for k, member in enumerate(members, 1):
                out[f"{name}~member{k}"] = [member]
    return out


def study(scores, languages: list[str]) -> tuple[str, dict]:
    """The Markdown table of both criteria over ``languages``, and its figures."""
    lines = ["| language | dev words | S / H words | candidates | chosen by dev: dev / H | "
             "chosen by dev+S: dev+S / H |", "|---|---:|---:|---:|---:|---:|"]
    sums = {"dev": [0.0, 0.0], "dev+S": [0.0, 0.0]}
    used = 0
    for lang in languages:
        sub = scores[scores.language == lang].set_index(["candidate", "slice"])
        names = sorted(set(sub.index.get_level_values(0)))
        if not names:
            continue
        acc = {n: {s: 100 * sub.loc[(n, s), "right"] / max(sub.loc[(n, s), "total"], 1)
                   for s in ("dev", "S", "H")} for n in names}
        pooled = {n: pooled_accuracy(*((sub.loc[(n, s), "right"], sub.loc[(n, s), "total"])
                                       for s in ("dev", "S"))) for n in names}
        # ties: the candidate listed first (sorted names), as a stable rule for both criteria
        by_dev = max(names, key=lambda n: acc[n]["dev"])
        by_pool = max(names, key=lambda n: pooled[n])
        sums["dev"][0] += acc[by_dev]["dev"]
        sums["dev"][1] += acc[by_dev]["H"]
        sums["dev+S"][0] += pooled[by_pool]
        sums["dev+S"][1] += acc[by_pool]["H"]
        used += 1
        n = sub.xs("dev", level=1)["total"].iloc[0]
        s_n, h_n = sub.xs("S", level=1)["total"].iloc[0], sub.xs("H", level=1)["total"].iloc[0]
        lines.append(f"| {lang} | {n} | {s_n} / {h_n} | {len(names)} | {by_dev}: "
                     f"{acc[by_dev]['dev']:.1f} / {acc[by_dev]['H']:.1f} | {by_pool}: "
                     f"{pooled[by_pool]:.1f} / {acc[by_pool]['H']:.1f} |")
    figures = {k: (v[0] / max(used, 1), v[1] / max(used, 1)) for k, v in sums.items()}
    lines += ["", f"Macro over {used} languages (the chosen models' figure on the data that "
              "chose them → on H, the drop):", ""]
    for k, (chosen_on, held) in figures.items():
        lines.append(f"- by {k}: {chosen_on:.2f} → {held:.2f} (drop {chosen_on - held:.2f})")
    return "\n".join(lines) + "\n", figures


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", required=True, help="the folder of conll2018-task1 (or it)")
    p.add_argument("--out", default="runs/selection-study")
    p.add_argument("--lang", default=None, help="comma-separated languages (default: every "
                   f"medium language with a high setting and fewer than {SMALL_DEV} dev words)")
    p.add_argument("--s-max", type=int, default=SELECTION_MAX,
                   help="the most words of S (default: ship.py's)")
    p.add_argument("--h-max", type=int, default=HELDOUT_MAX)
    p.add_argument("--seed", type=int, default=SEED, help="default: ship.py's")
    p.add_argument("--device", default="cpu")
    args = p.parse_args(argv)
    import pandas as pd

    data = Path(args.data_dir)
    if (data / "conll2018-task1").is_dir():
        data = data / "conll2018-task1"
    registry = tomllib.loads((MODELS / "registry.toml").read_text(encoding="utf-8"))
    if args.lang:
        languages = args.lang.split(",")
    else:
        languages = sorted(
            f.name[:-len("-dev")] for f in data.glob("*-dev")
            if (data / f"{f.name[:-len('-dev')]}-train-high").is_file()
            and (data / f"{f.name[:-len('-dev')]}-train-medium").is_file()
            and len(read_pairs(f)) < SMALL_DEV)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = out / "scores.csv"
    rows = pd.read_csv(cache).to_dict("records") if cache.is_file() else []
    done = {(r["candidate"], r["language"], r["slice"]) for r in rows}
    for lang in languages:
        slices = heldout_slices(lang, data, args.s_max, args.h_max, args.seed)
        if slices is None:
            continue
        parts = {"dev": read_pairs(data / f"{lang}-dev"), "S": slices[0], "H": slices[1]}
        for name, members in candidates(registry, lang).items():
            for part, pairs in parts.items():
                if (name, lang, part) in done or not pairs:
                    continue
                right, total = score_pairs(members, lang, pairs, args.device)
                rows.append({"candidate": name, "language": lang, "slice": part,
                             "right": right, "total": total})
                pd.DataFrame(rows).to_csv(cache, index=False)
                print(f"{lang} {name} {part}: {right}/{total}", flush=True)
    table, _ = study(pd.DataFrame(rows), languages)
    (out / "selection.md").write_text(table, encoding="utf-8")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
