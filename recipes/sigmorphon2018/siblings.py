"""The lemma's other forms: every shipped model's dev accuracy with its forms re-ranked.

For each language of a setting, the shipped model of that setting (the registry's, beam 5) is
evaluated on dev with :mod:`inflect.inference.siblings` built from the language's train file of
the same setting (never dev), as ``inflect evaluate --lang L --setting S --siblings train-S``
does; the model alone is the registry's dev figure. Prints a Markdown table per setting
(language, model alone, re-ranked, difference, sorted by the difference) and the macro averages.
Results are kept in ``--out`` (``siblings-SETTING.tsv``: language, inputs, accuracy), so a rerun
evaluates only the languages missing there.

Usage::

    python recipes/sigmorphon2018/siblings.py --data-dir ../shared/data/conll2018-task1 \\
        --setting high --setting medium --out runs/siblings
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: ``auto`` re-ranks a language's forms where re-ranking got at least this many more of its dev
#: words right (3 of 1,000 is 0.3 points; of 100, 3 points: a small dev set must show more).
MIN_WORDS = 3


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", required=True, help="The conll2018-task1 folder.")
    p.add_argument("--setting", action="append", choices=("high", "medium", "low"),
                   help="A setting (repeatable; default high).")
    p.add_argument("--lang", action="append", default=None,
                   help="A language (repeatable; default: every one with a model of the setting).")
    p.add_argument("--out", type=Path, required=True, help="Folder of the kept results.")
    p.add_argument("--write", type=Path, default=None,
                   help="Write the table of inflect predict --siblings auto (TOML).")
    args = p.parse_args(argv)
    args.setting = args.setting or ["high"]
    return args


def shipped(setting: str) -> dict[str, tuple[str, float]]:
    """Per language with a shipped model of ``setting``: the name and dev accuracy of the model
    that answers it in that setting (the registry's, beam 5)."""
    from inflect.inference.registry import best_model, list_models

    by_language: dict[str, list] = {}
    for m in list_models(every=True):
        if m.setting == setting:
            by_language.setdefault(m.language, []).append(m)
    chosen = {lang: best_model(models) for lang, models in sorted(by_language.items())}
    return {lang: (m.name, m.dev_accuracy) for lang, m in chosen.items()}


def toml_table(results: dict[str, dict[str, tuple[str, int, float, float]]]) -> str:
    """The table of :data:`inflect.inference.siblings.SHIPPED_TABLE`: per setting, language ->
    (model, dev words, alone, re-ranked)."""
    lines = [
        "# Written by recipes/sigmorphon2018/siblings.py --write: per setting and language, the",
        "# shipped model measured, its dev words, its dev accuracy (percent, beam 5) alone and with",
        "# its forms re-ranked by the lemma's other forms in train-SETTING",
        "# (inflect.inference.siblings), and whether `inflect predict --siblings auto` re-ranks",
        f"# (at least {MIN_WORDS} more dev words right).",
    ]
    for setting, rows in results.items():
        lines += ["", f"[{setting}]"]
        for lang, (model, n, alone, ranked) in sorted(rows.items()):
            on = round((ranked - alone) * n / 100) >= MIN_WORDS
            lines.append(f'{lang} = {{ model = "{model}", dev = {n}, alone = {alone:.1f}, '
                         f"re_ranked = {ranked:.1f}, on = {'true' if on else 'false'} }}")
    return "\n".join(lines) + "\n"


def has_split(language: str, split: str, data_dir: str) -> bool:
    """Whether the shared-task data have ``language``'s ``split`` (Telugu has train-low only)."""
    from inflect.corpora.manifests import locate

    try:
        locate(language, split, data_dir)
    except (FileNotFoundError, ValueError):
        return False
    return True


def re_ranked(language: str, setting: str, data_dir: str) -> tuple[int, float]:
    """(dev inputs, accuracy) of ``language``'s shipped model of ``setting``, its forms re-ranked
    by train-SETTING."""
    from inflect.evaluation.runner import evaluate_predictor, load_gold, sibling_evidence
    from inflect.inference.predictor import Predictor

    gold = load_gold([language], "dev", data_dir=data_dir)
    evidence = sibling_evidence(gold, f"train-{setting}", "dev", data_dir)
    predictor = Predictor.from_default(language, setting=setting, siblings=evidence)
    frame = evaluate_predictor(predictor, gold).frame
    row = frame[frame["language"] == language].iloc[0]
    return int(row["n"]), float(row["accuracy"])


def table(setting: str, alone: dict[str, float], ranked: dict[str, float]) -> str:
    """The Markdown table of one setting, the languages by the difference, largest first."""
    rows = sorted(ranked, key=lambda lang: (alone[lang] - ranked[lang], lang))
    lines = [f"| language ({setting}) | model alone | re-ranked | difference |",
             "|---|---:|---:|---:|"]
    for lang in rows:
        lines.append(f"| {lang} | {alone[lang]:.1f} | {ranked[lang]:.1f} | "
                     f"{ranked[lang] - alone[lang]:+.1f} |")
    n = len(rows)
    macro_alone = sum(alone[lang] for lang in rows) / n
    macro_ranked = sum(ranked[lang] for lang in rows) / n
    best = sum(max(alone[lang], ranked[lang]) for lang in rows) / n
    gains = sum(ranked[lang] > alone[lang] for lang in rows)
    losses = sum(ranked[lang] < alone[lang] for lang in rows)
    lines.append(f"| **macro ({n})** | {macro_alone:.2f} | {macro_ranked:.2f} | "
                 f"{macro_ranked - macro_alone:+.2f} |")
    lines.append("")
    lines.append(f"{gains} languages gain, {losses} lose; re-ranked only where dev gains: "
                 f"{best:.2f}.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict[str, tuple[str, int, float, float]]] = {}
    for setting in args.setting:
        models = shipped(setting)
        alone = {lang: accuracy for lang, (_, accuracy) in models.items()}
        languages = [lang for lang in (args.lang or list(alone))
                     if has_split(lang, f"train-{setting}", args.data_dir)]
        for lang in sorted(set(args.lang or alone) - set(languages)):
            print(f"{lang}: no train-{setting} to re-rank by, left out", file=sys.stderr)
        kept = args.out / f"siblings-{setting}.tsv"
        ranked: dict[str, tuple[int, float]] = {}
        if kept.is_file():
            for line in kept.read_text(encoding="utf-8").splitlines():
                lang, n, accuracy = line.split("\t")
                ranked[lang] = int(n), float(accuracy)
        with kept.open("a", encoding="utf-8") as out:
            for lang in languages:
                if lang in ranked:
                    continue
                ranked[lang] = re_ranked(lang, setting, args.data_dir)
                out.write(f"{lang}\t{ranked[lang][0]}\t{ranked[lang][1]}\n")
                out.flush()
                print(f"{lang}: {alone[lang]:.1f} -> {ranked[lang][1]:.1f}", file=sys.stderr)
        print(table(setting, alone, {lang: ranked[lang][1] for lang in languages}))
        print()
        results[setting] = {lang: (models[lang][0], ranked[lang][0], alone[lang], ranked[lang][1])
                            for lang in languages}
    if args.write:
        from inflect.io.atomic import write_text

        write_text(args.write, toml_table(results))
        print(f"wrote {args.write}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
