"""The README's paragraph on the shipped models, written from the registry (never by hand).

Reads ``inflect/models/registry.toml`` (each model's members and, per language, the dev accuracy
of each model serving it), the members' storage, the official baseline and the 2018 winner's
test figures, and writes the paragraph between the markers ``<!-- shipped-figures:start -->``
and ``<!-- shipped-figures:end -->`` of README.md (``tests/test_readme_figures.py`` checks that
the README says what the registry does)::

    python recipes/sigmorphon2018/readme_figures.py --data-dir ../shared/data
    python recipes/sigmorphon2018/readme_figures.py --data-dir ../shared/data --check
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from heldout import SMALL_DEV

ROOT = Path(__file__).resolve().parents[2]
START, END = "<!-- shipped-figures:start -->", "<!-- shipped-figures:end -->"


@dataclass(frozen=True)
class SettingFigures:
    """One data setting's figures: the languages its multilingual model serves, the macro dev
    accuracy (over every language with a model of the setting) of the shipped model of the
    setting that answers each language (:func:`inflect.inference.registry.best_model`: the best
    on dev, or on dev and a held-out slice pooled where the registry's ``[heldout.NAME]`` says
    so), the official baseline's macro over the same languages, how
    many languages are at or above it, the 2018 winner's macro test accuracy, and the
    multilingual model's macro and members."""

    languages: int
    macro: float
    baseline: float
    at_or_above: int
    with_baseline: int
    winner: float
    multilingual: float
    multilingual_members: int


@dataclass(frozen=True)
class Figures:
    """What the paragraph says: languages served, weights (MB), per-language models by setting,
    in 4 bits and ensembles, and each setting's :class:`SettingFigures`."""

    languages: int
    megabytes: float
    per_language: dict[str, int]
    in_4_bits: int
    ensembles: int
    settings: dict[str, SettingFigures]
    #: the registry's ``[selection] criterion`` (``"dev"`` where it has none)
    criterion: str = "dev"


def figures(models_dir: Path, data_dir: str | None) -> Figures:
    """The figures of the registry in ``models_dir``.

    Raises:
        SystemExit: no baseline table in or beside ``data_dir``.
    """
    from inflect.corpora.baseline import official_baseline, system_accuracy
    from inflect.inference.registry import best_model, list_models
    from inflect.nn.checkpoint import INT4_GROUPS, load_metadata

    registry = tomllib.loads((models_dir / "registry.toml").read_text(encoding="utf-8"))
    models, served = registry["model"], registry["language"]
    baseline = official_baseline(data_dir=data_dir)
    if baseline is None:
        raise SystemExit("no official baseline table: give --data-dir (the folder of "
                         "conll2018-task1-baseline-dev.csv)")
    own = {n: m for n, m in models.items()
           if all(p.startswith("per-language/") for p in m["members"])}
    entries = list_models(models_dir, every=True)
    per_setting: dict[str, SettingFigures] = {}
    for setting in ("high", "medium"):
        groups: dict[str, list] = {}
        for entry in entries:
            if entry.setting == setting:
                groups.setdefault(entry.language, []).append(entry)
        best = {lang: best_model(group).dev_accuracy for lang, group in groups.items()}
        floors = baseline[baseline["setting"] == setting].set_index("language")["accuracy"]
        floors = {lang: float(floors[lang]) for lang in best if lang in floors}
        winner = system_accuracy(setting, data_dir=data_dir)
        if not winner:
            raise SystemExit(f"no 2018 results sheet for {setting} (conll2018-task1-results/"
                             f"{setting}.tsv inside or beside --data-dir): give --data-dir")
        multi = f"multilingual-{setting}"
        multi_acc = [row[multi] for row in served.values() if multi in row]
        per_setting[setting] = SettingFigures(
            languages=len(multi_acc),
            macro=sum(best.values()) / len(best),
            baseline=sum(floors.values()) / len(floors),
            at_or_above=sum(best[lang] >= floor for lang, floor in floors.items()),
            with_baseline=len(floors),
            winner=sum(winner.values()) / len(winner),
            multilingual=sum(multi_acc) / len(multi_acc),
            multilingual_members=len(models[multi]["members"]),
        )
    files = [models_dir / p for m in models.values() for p in m["members"]]
    return Figures(
        languages=len(served),
        megabytes=sum(f.stat().st_size for f in files) / 1e6,
        per_language={s: sum(m["setting"] == s for m in own.values()) for s in ("high", "medium")},
        in_4_bits=sum(load_metadata(models_dir / m["members"][0]).get("quantized") == INT4_GROUPS
                      for m in own.values()),
        ensembles=sum(len(m["members"]) > 1 for m in own.values()),
        settings=per_setting,
        criterion=registry.get("selection", {}).get("criterion", "dev"),
    )


def paragraph(f: Figures) -> str:
    """The README's bullet on the shipped models (Markdown, wrapped at 100 columns)."""
    import textwrap

    high, medium = f.settings["high"], f.settings["medium"]
    n_own = sum(f.per_language.values())
    text = (
        f"Shipped models (`inflect models`, {f.megabytes:.1f} MB of weights, in int8 with a "
        "scale per row or in 4 bits with a scale per 32 weights, whichever gains more per "
        f"byte): every one of the {f.languages} languages answers, and every answer names the "
        "model that gave it. One multilingual model per data setting, as in the paper (the "
        "language is a source symbol; 1.5-entmax attention and output, CPU-trained): the "
        f"**high** model ({high.languages} languages, `cpu-small-plain`, "
        f"{high.multilingual_members} member{'s' if high.multilingual_members > 1 else ''}), "
        f"{high.multilingual:.1f}% macro exact match on dev, and the **medium** model "
        f"({medium.languages} languages, `cpu-small`, {medium.multilingual_members} "
        f"member{'s' if medium.multilingual_members > 1 else ''}), {medium.multilingual:.1f}%; "
        f"beside them **{n_own} models of one language each** ({f.per_language['high']} high, "
        f"{f.per_language['medium']} medium; {f.in_4_bits} of them in 4 bits; {f.ensembles} of "
        "them ensembles of several runs), shipped where they beat the multilingual model on the "
        "language's dev set"
        + (f" (a medium one of fewer than {SMALL_DEV} dev words with a high setting: on dev and "
           "a held-out slice of train-high pooled)" if f.criterion == "dev+heldout" else "")
        + " by the most per byte, each trimmed to its language's symbols. With "
        f"them, the models of each setting reach **{high.macro:.1f}% macro on high dev** "
        f"({high.macro:.2f}; official baseline {high.baseline:.1f}; **{high.at_or_above} of "
        f"{high.with_baseline} languages at or above it**) and **{medium.macro:.1f}% on medium "
        f"dev** ({medium.macro:.2f}; baseline {medium.baseline:.1f}; **{medium.at_or_above} of "
        f"{medium.with_baseline}**); the 2018 winner scored {high.winner:.1f} / "
        f"{medium.winner:.1f} on test. `inflect models` says how each model was made (from "
        "scratch, warm start, hallucinated pairs, ensemble)."
    )
    lines = textwrap.wrap(text, width=98, break_on_hyphens=False, break_long_words=False)
    return "\n".join(["- " + lines[0], *("  " + line for line in lines[1:])])


def rewrite(readme: str, new: str) -> str:
    """``readme`` with the text between the markers replaced by ``new``.

    Raises:
        ValueError: the markers are not there once each, in order.
    """
    if readme.count(START) != 1 or readme.count(END) != 1 or readme.index(START) > readme.index(END):
        raise ValueError(f"README.md needs one {START} and then one {END}")
    head, rest = readme.split(START)
    _, tail = rest.split(END)
    return f"{head}{START}\n{new}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--models-dir", default=str(ROOT / "inflect" / "models"))
    parser.add_argument("--readme", default=str(ROOT / "README.md"))
    parser.add_argument("--check", action="store_true",
                        help="only say whether the README agrees (exit status 1 where not)")
    args = parser.parse_args(argv)
    readme = Path(args.readme)
    text = readme.read_text(encoding="utf-8")
    new = rewrite(text, paragraph(figures(Path(args.models_dir), args.data_dir)))
    if args.check:
        print("README.md agrees with the registry" if new == text
              else "README.md differs from the registry: run without --check")
        return 0 if new == text else 1
    if new != text:
        readme.write_text(new, encoding="utf-8")
    print(f"wrote {readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
