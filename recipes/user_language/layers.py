"""Layered UniMorph 4 features read opaque or as their parts: the same data, the same seed and
settings, two models (``inflect train --layered-features opaque|parts``), their dev accuracy.

With SIGMORPHON 2023 files (``--train amh.trn --dev amh.dev --lang amharic``), the files are
used as they are. With a CoNLL–SIGMORPHON 2018 language (``--from-2018 spanish --setting
medium``), its files are first written in the 2023 layout with the verb's subject agreement as
a UniMorph 4 layer, as the 2023 data write it: a verb bundle's person, number and gender
features become one ``NOM(...)`` layer (``V;IND;PRS;1;SG`` -> ``V;IND;PRS;NOM(1,SG)``); other
bundles are unchanged. The converted files go to ``OUT/data``.

Usage::

    python recipes/user_language/layers.py --from-2018 spanish --setting medium \\
        --data-dir ../shared/data --out runs/layers-spanish --epochs 20 [--preset cpu-small]
    python recipes/user_language/layers.py --train amh.trn --dev amh.dev --test amh.tst \\
        --lang amharic --out runs/layers-amh

Prints (and writes to ``OUT/results.md``) one row per reading: dev accuracy of the selected
epoch, the epoch, epochs run, CPU minutes, the number of feature symbols of the model and, with
``--test``, the accuracy on the test file (``inflect evaluate --model ... --gold TEST``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

#: The features of a verb's subject agreement that become its NOM layer.
AGREEMENT = ("1", "2", "3", "SG", "PL", "DU", "MASC", "FEM", "NEUT", "INCL", "EXCL")


def layered(tags: str) -> str:
    """A 2018 verb bundle with its subject agreement as a ``NOM`` layer (others unchanged)."""
    features = tags.split(";")
    if "V" not in features:
        return tags
    agreement = [f for f in features if f in AGREEMENT]
    if not any(f in ("1", "2", "3") for f in agreement):
        return tags
    kept = [f for f in features if f not in AGREEMENT]
    return ";".join([*kept, f"NOM({','.join(agreement)})"])


def convert(language: str, setting: str, data_dir: str | None, out: Path) -> tuple[Path, Path]:
    """The language's train and dev files in the 2023 layout with layered agreement."""
    from inflect.corpora.manifests import locate

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for split in (f"train-{setting}", "dev"):
        source = locate(language, split, data_dir)
        lines = []
        for line in source.read_text(encoding="utf-8").splitlines():
            if line.strip():
                lemma, form, tags = line.split("\t")
                lines.append(f"{lemma}\t{layered(tags)}\t{form}")
        path = out / f"{language}.{split}.tsv"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        written.append(path)
    return written[0], written[1]


def train(reading: str, args: argparse.Namespace, train_file: Path, dev_file: Path) -> Path:
    """One run (resumed where it stopped); its folder."""
    folder = Path(args.out) / reading
    command = [
        sys.executable,
        "-m",
        "inflect",
        "train",
        "--train",
        str(train_file),
        "--dev",
        str(dev_file),
        "--lang",
        args.lang,
        "--preset",
        args.preset,
        "--epochs",
        str(args.epochs),
        "--seed",
        str(args.seed),
        "--layered-features",
        reading,
        "--threads",
        str(args.threads),
        "--out",
        str(folder),
    ]
    if (folder / "trainer_state.safetensors").is_file():
        command = [
            sys.executable,
            "-m",
            "inflect",
            "train",
            "--resume",
            "--out",
            str(folder),
            "--epochs",
            str(args.epochs),
            "--threads",
            str(args.threads),
        ]
    subprocess.run(command, check=True)
    return folder


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", help="a 2023 training file (with --dev and --lang)")
    parser.add_argument("--dev")
    parser.add_argument("--test", default=None, help="a gold test file to score each model on")
    parser.add_argument("--lang", default=None)
    parser.add_argument("--from-2018", dest="from_2018", help="a CoNLL-SIGMORPHON 2018 language")
    parser.add_argument("--setting", default="medium")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--out", required=True)
    parser.add_argument("--preset", default="cpu-small")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    if args.from_2018:
        train_file, dev_file = convert(
            args.from_2018, args.setting, args.data_dir, Path(args.out) / "data"
        )
        args.lang = args.lang or f"{args.from_2018}-layered"
    elif args.train and args.dev and args.lang:
        train_file, dev_file = Path(args.train), Path(args.dev)
    else:
        parser.error("give --from-2018 LANGUAGE, or --train, --dev and --lang")
    rows = []
    for reading in ("opaque", "parts"):
        folder = train(reading, args, train_file, dev_file)
        rows.append(
            _row(reading, folder) + (f" {_test(folder, args.test):.2f} |" if args.test else "")
        )
    test = " test accuracy |" if args.test else ""
    table = [
        f"| reading | dev accuracy | best epoch | epochs | CPU min | feature symbols |{test}",
        "|---|---:|---:|---:|---:|---:|" + ("---:|" if args.test else ""),
        *rows,
    ]
    text = (
        f"{args.lang}: {train_file.name} / {dev_file.name}, --preset {args.preset}, "
        f"--seed {args.seed}, at most {args.epochs} epochs\n\n" + "\n".join(table) + "\n"
    )
    print(text)
    (Path(args.out) / "results.md").write_text(text, encoding="utf-8")


def _test(folder: Path, gold: str) -> float:
    """The model's accuracy on the gold file (``inflect evaluate``'s first row, TSV)."""
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "inflect",
            "evaluate",
            "--model",
            str(folder),
            "--gold",
            gold,
            "--format",
            "tsv",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    header, first = out.splitlines()[:2]
    return float(dict(zip(header.split("\t"), first.split("\t"), strict=True))["accuracy"])


def _row(reading: str, folder: Path) -> str:
    from inflect.nn.checkpoint import load_checkpoint

    loaded = load_checkpoint(folder)
    facts = loaded.metadata["training"]
    cpu = sum(float(m.get("cpu_seconds") or 0) for m in loaded.metadata["metrics"]) / 60
    symbols = len(loaded.network.feature_vocab) - 1  # less the padding symbol
    return (
        f"| {reading} | {facts['best_accuracy']:.2f} | {facts['best_epoch']} | "
        f"{facts['epoch']} | {cpu:.1f} | {symbols} |"
    )


if __name__ == "__main__":
    main()
