"""German→English translation on Multi30k with sparse attention and outputs: the second experiment
of Peters, Niculae & Martins (2019), "Sparse Sequence-to-Sequence Models" (ACL), section 5.2,
on the same ``inflect`` model, trainer, search and certificates as inflection.

The recipe is configuration plus glue on the public API:

1. a joint SentencePiece subword model (BPE, German and English together) trained on the
   training split only (:func:`inflect.text.codec.train_sentencepiece`), stored inside every
   checkpoint;
2. :func:`inflect.training.train` on the sentence pairs (:func:`inflect.training.items_from_texts`),
   with separate model vocabularies (the pieces the German side uses, the pieces the English side
   uses: the output layer ranges over English pieces only), model selection by corpus BLEU of
   greedy decoding on the dev sentences;
3. evaluation on val with :class:`inflect.inference.translator.Translator` (beam search with certificates):
   sacrebleu BLEU and chrF of the detokenised output against the raw references (with their
   signatures), the mean output support size per decoding step along the output (teacher
   forcing on the search's encoder pass, :func:`inflect.decoding.teacher_forced`), the share of
   sentences whose beam carries an exact-search certificate, and the training throughput in
   target tokens per second.

One command runs a grid of (output, attention) mappings; it can be stopped and restarted at any
time: finished runs are skipped, interrupted ones resumed, evaluations cached in ``eval.json``.

    python recipes/translation/run.py --smoke --out runs/mt-smoke
    python recipes/translation/run.py --out runs/mt --threads 2          # full size

See README.md in this folder.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from inflect.decoding.protocol import Certificate
from inflect.io.atomic import write_bytes
from inflect.nn.vocab import UnknownSymbolWarning
from inflect.text.codec import SentencePieceCodec, train_sentencepiece
from inflect.training import Item, TrainingData, items_from_texts, run_status, train
from inflect.training.config import Config

#: The output α sweep of the full size (1.33: near the paper's best output α on German→English).
ALPHAS = ("softmax", "entmax:1.33", "entmax15", "sparsemax")


@dataclass(frozen=True)
class Size:
    """One size of the recipe.

    Attributes:
        train_pairs: training pairs used (the first N of train; None: all 29,000).
        dev_pairs: val pairs used for model selection and evaluation (None: all 1,014).
        vocab_size: pieces of the joint SentencePiece model.
        model_type: ``"bpe"`` or ``"unigram"``.
        config: :class:`inflect.training.config.Config` overrides (fields of the network and of
            the training procedure).
        runs: (output mapping, attention mapping) pairs.
        beam: beam size of the evaluation.
    """

    train_pairs: int | None
    dev_pairs: int | None
    vocab_size: int
    model_type: str
    config: dict[str, Any]
    runs: tuple[tuple[str, str], ...]
    beam: int = 5
    extra: dict[str, Any] = field(default_factory=dict)


#: Smoke: a few thousand pairs, a small model, one epoch (CI on 2 CPU cores, a few minutes).
SMOKE = Size(
    train_pairs=3000,
    dev_pairs=200,
    vocab_size=1000,
    model_type="bpe",
    config={
        "emb_dim": 64,
        "hidden_dim": 128,
        "layers": 1,
        "dropout": 0.1,
        "batch_size": 32,
        "max_epochs": 1,
        "patience": 1,
        "eval_batch_size": 200,
        "max_decode_len": 60,
    },
    runs=(("softmax", "softmax"), ("entmax15", "entmax15")),
)

#: Full: all of train, val for selection and evaluation, a joint BPE of 8,000 pieces, the output
#: α sweep (1.0, 1.33, 1.5, 2.0) at fixed 1.5-entmax attention. Sized to train on 2 CPU cores in
#: under two hours (two runs at a time, one thread each; measured cost in README.md): embeddings
#: 128, one layer of 256, at most 10 epochs -- much smaller than the paper's OpenNMT model
#: (2 x 500), the same for every mapping. Other attention mappings, e.g. the all-softmax and
#: all-sparsemax corners of the paper's grid: ``--run softmax/softmax --run sparsemax/sparsemax``.
FULL = Size(
    train_pairs=None,
    dev_pairs=None,
    vocab_size=8000,
    model_type="bpe",
    config={
        "emb_dim": 128,
        "hidden_dim": 256,
        "layers": 1,
        "dropout": 0.3,
        "batch_size": 64,
        "max_epochs": 10,
        "patience": 3,
        "eval_batch_size": 250,
        "max_decode_len": 100,
    },
    runs=(
        ("softmax", "entmax15"),
        ("entmax:1.33", "entmax15"),
        ("entmax15", "entmax15"),
        ("sparsemax", "entmax15"),
    ),
)


# ------------------------------------------------------------------------------------- data
def data_folder(data_dir: str | Path | None) -> Path:
    """The folder with ``train.de`` etc.: ``data_dir`` itself or ``data_dir/multi30k``; default
    :func:`inflect.corpora.manifests.data_dir` ``/multi30k``.

    Raises:
        FileNotFoundError: no ``train.de`` there (the message says how to fetch the data).
    """
    from inflect.corpora.manifests import data_dir as default_dir

    base = Path(data_dir) if data_dir is not None else default_dir()
    for folder in (base, base / "multi30k"):
        if (folder / "train.de").is_file():
            return folder
    raise FileNotFoundError(
        f"{base}: no Multi30k train.de (nor in {base / 'multi30k'}); fetch it with "
        f"`inflect data fetch multi30k --data-dir {base}` or point --data-dir at a copy"
    )


def read_lines(path: Path, limit: int | None = None) -> list[str]:
    """The lines of a UTF-8 file without their ends (the first ``limit``).

    Raises:
        ValueError: a line that is not UTF-8 (``FILE:LINE``).
    """
    out: list[str] = []
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if limit is not None and len(out) >= limit:
                break
            try:
                out.append(raw.decode("utf-8").rstrip("\r\n"))
            except UnicodeDecodeError as exc:
                raise ValueError(f"{path}:{number}: not UTF-8 ({exc.reason})") from None
    return out


def read_pairs(folder: Path, split: str, limit: int | None = None) -> tuple[list[str], list[str]]:
    """German and English sentences of ``split`` (``"train"`` or ``"val"``), aligned by line."""
    return read_lines(folder / f"{split}.de", limit), read_lines(folder / f"{split}.en", limit)


def bleu_score(hypotheses: Sequence[str], references: Sequence[str]) -> tuple[Any, str]:
    """sacrebleu corpus BLEU (default settings: 13a tokenisation, exponential smoothing) of
    detokenised hypotheses against raw references: (score object, signature)."""
    import sacrebleu

    metric = sacrebleu.metrics.BLEU()
    score = metric.corpus_score(list(hypotheses), [list(references)])
    return score, str(metric.get_signature())


def chrf_score(hypotheses: Sequence[str], references: Sequence[str]) -> tuple[Any, str]:
    """sacrebleu corpus chrF (character 6-grams, β = 2): (score object, signature)."""
    import sacrebleu

    metric = sacrebleu.metrics.CHRF()
    score = metric.corpus_score(list(hypotheses), [list(references)])
    return score, str(metric.get_signature())


def build_data(size: Size, folder: Path, codec: SentencePieceCodec | None = None) -> TrainingData:
    """Training data of ``size``: the codec (trained on the training split's both sides when not
    given), items, and BLEU of greedy decoding on dev as the model-selection score.

    Raises:
        ValueError: misaligned files or an empty line (``FILE:LINE``).
    """
    train_de, train_en = read_pairs(folder, "train", size.train_pairs)
    dev_de, dev_en = read_pairs(folder, "val", size.dev_pairs)
    if codec is None:
        codec = train_sentencepiece(train_de + train_en, size.vocab_size, size.model_type)
    train_items = items_from_texts(train_de, train_en, codec, str(folder / "train.de"),
                                   str(folder / "train.en"))
    dev_items = items_from_texts(dev_de, dev_en, codec, str(folder / "val.de"),
                                 str(folder / "val.en"))

    def dev_bleu(predictions: Sequence[tuple[str, ...]], items: Sequence[Item]) -> float:
        del items  # the raw references are dev_en, in the same order
        return float(bleu_score([codec.decode(p) for p in predictions], dev_en)[0].score)

    return TrainingData(
        train=train_items,
        dev=dev_items,
        description={
            "corpus": "multi30k",
            "source_language": "de",
            "target_language": "en",
            "train_pairs": len(train_items),
            "dev_pairs": len(dev_items),
            "subwords": f"sentencepiece {size.model_type} joint {size.vocab_size}",
            "codec_sha256": codec.sha256,
        },
        codec=codec,
        dev_score=dev_bleu,
        dev_score_name="dev BLEU (sacrebleu, greedy)",
        shared_vocab=False,
    )


# ------------------------------------------------------------------------------------- train
def run_name(output: str, attention: str) -> str:
    """Folder name of one run, e.g. ``out-entmax1.33_att-entmax15``."""
    clean = lambda m: m.replace(":", "").replace("/", "")  # noqa: E731
    return f"out-{clean(output)}_att-{clean(attention)}"


def train_one(
    size: Size, data: TrainingData, output: str, attention: str, out_dir: Path,
    device: str = "cpu", seed: int = 1, log: Any = print,
) -> dict[str, Any]:
    """Train (or resume, or skip when finished) one run; returns its throughput record.

    The throughput (target symbols incl. EOS per second of the training part of each epoch,
    from the trainer's ``epoch`` events) is kept in ``out_dir/throughput.json``.
    """
    status = run_status(out_dir)
    record_path = out_dir / "throughput.json"
    if status == "finished":
        log(f"{out_dir}: finished, skipped")
        return json.loads(record_path.read_text()) if record_path.is_file() else {}
    epochs: list[dict[str, Any]] = []
    if status == "interrupted" and record_path.is_file():
        epochs = json.loads(record_path.read_text()).get("epochs", [])

    def progress(event: str, info: dict[str, Any]) -> None:
        if event == "epoch":
            epochs.append({"epoch": info["epoch"], "tokens": info["train_tokens"],
                           "seconds": info["train_seconds"], "dev_score": info["dev_score"]})
            record = throughput_record(epochs)
            write_bytes(record_path, json.dumps(record, indent=1).encode())
            log(f"{out_dir.name}: epoch {info['epoch']} train loss {info['train_loss']:.3f} "
                f"dev BLEU {info['dev_score']:.2f} ({record['tokens_per_s']:.0f} tok/s)")

    config = Config(**size.config, output_mapping=output, attention_mapping=attention, seed=seed)
    train(config if status == "new" else None, data, out_dir, device=device,
          resume=status == "interrupted", progress=progress)
    return json.loads(record_path.read_text())


def throughput_record(epochs: list[dict[str, Any]]) -> dict[str, Any]:
    """Pooled training throughput: total target tokens / total training seconds."""
    tokens = sum(e["tokens"] for e in epochs)
    seconds = sum(e["seconds"] for e in epochs)
    return {"epochs": epochs, "tokens": tokens, "seconds": seconds,
            "tokens_per_s": tokens / seconds if seconds else math.nan}


# ------------------------------------------------------------------------------------- evaluate
def evaluate_model(
    model_dir: Path, sources: Sequence[str], references: Sequence[str], beam: int = 5,
    chunk: int = 50,
) -> dict[str, Any]:
    """Translate ``sources`` with a checkpoint and score it against ``references``.

    Returns:
        ``bleu``, ``chrf`` (scores), ``bleu_signature``, ``chrf_signature``,
        ``mean_step_support`` (nonzero output probabilities per decoding step along the best
        beam output, EOS step included, pooled over sentences), ``target_vocab`` (V),
        ``full_support`` / ``mode_only`` / ``certified`` (shares of sentences whose first beam
        search is certified full support / the mode only / either), ``sentences``,
        ``decode_seconds`` and the ``hypotheses``.
    """
    from inflect.evaluation.sparsity import mean_step_support
    from inflect.inference.translator import SentenceQuery, Translator

    translator = Translator.from_checkpoints([model_dir], beam_size=beam, support="never",
                                             chunk_size=chunk)
    hyps: list[str] = []
    steps: list[list[int]] = []
    certs: list[Certificate] = []
    unseen = 0
    t0 = time.perf_counter()
    queries = [SentenceQuery(s, "val.de", i + 1) for i, s in enumerate(sources)]
    for start in range(0, len(queries), chunk):
        with warnings.catch_warnings():  # unseen pieces: counted in the result instead
            warnings.simplefilter("ignore", UnknownSymbolWarning)
            prepared = [translator.prepare(q) for q in queries[start : start + chunk]]
        unseen += sum(bool(p.warnings) for p in prepared)
        for s in translator.run_detailed(prepared, support_sizes=True):
            best = s.prediction.best
            hyps.append(best.form if best is not None else "")
            certs.append(s.prediction.beam_certificate)
            steps.append(s.support_sizes or [])
    seconds = time.perf_counter() - t0
    (bleu, bleu_sig), (chrf, chrf_sig) = bleu_score(hyps, references), chrf_score(hyps, references)
    n = max(1, len(certs))
    full = sum(c is Certificate.FULL_SUPPORT for c in certs) / n
    mode = sum(c is Certificate.MODE_ONLY for c in certs) / n
    return {
        "bleu": bleu.score,
        "chrf": chrf.score,
        "bleu_signature": bleu_sig,
        "chrf_signature": chrf_sig,
        "mean_step_support": mean_step_support(steps),
        "target_vocab": translator.members[0].target_size,
        "full_support": full,
        "mode_only": mode,
        "certified": full + mode,
        "sentences": len(hyps),
        "sentences_with_unseen_pieces": unseen,
        "beam": beam,
        "decode_seconds": seconds,
        "hypotheses": hyps,
    }


def results_markdown(rows: Sequence[dict[str, Any]]) -> str:
    """The results as a Markdown table (one row per run). Training throughput is also given
    relative to the run with the softmax output and the same attention (else softmax/softmax;
    ``nan`` when there is neither)."""
    speed = {(r["output"], r["attention"]): r["tokens_per_s"] for r in rows}
    lines = [
        "| output | attention | BLEU | chrF | mean output support / step (of V) | certified "
        "beam (full support / mode) | train tokens/s (× softmax output) | epochs |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        base = speed.get(("softmax", r["attention"]), speed.get(("softmax", "softmax"), math.nan))
        lines.append(
            f"| {r['output']} | {r['attention']} | {r['bleu']:.2f} | {r['chrf']:.2f} | "
            f"{r['mean_step_support']:.1f} (of {r['target_vocab']}) | "
            f"{100 * r['certified']:.1f}% ({100 * r['full_support']:.1f}% / "
            f"{100 * r['mode_only']:.1f}%) | {r['tokens_per_s']:.0f} "
            f"({r['tokens_per_s'] / base:.2f}×) | {r['epochs']} |"
        )
    if rows:
        lines += ["", f"BLEU: `{rows[0]['bleu_signature']}`", "",
                  f"chrF: `{rows[0]['chrf_signature']}`"]
    return "\n".join(lines) + "\n"


def run_grid(
    size: Size, out: Path, data_dir: str | Path | None = None, device: str = "cpu",
    runs: Sequence[tuple[str, str]] | None = None, log: Any = print,
) -> list[dict[str, Any]]:
    """Train and evaluate every (output, attention) run of ``size`` (or of ``runs``; an empty
    list: only the shared subword model ``out/codec.json``) under ``out``; write
    ``out/results.jsonl`` and ``out/results.md``. Restartable (see the module docstring)."""
    folder = data_folder(data_dir)
    codec = None
    codec_path = out / "codec.json"  # the shared subword model, so resumed runs reuse it
    if codec_path.is_file():
        from inflect.text.codec import codec_from_dict

        codec = codec_from_dict(json.loads(codec_path.read_text()))
    data = build_data(size, folder, codec)
    if codec is None:
        write_bytes(codec_path, json.dumps(data.codec.to_dict()).encode())
    dev_de, dev_en = read_pairs(folder, "val", size.dev_pairs)
    rows = []
    for output, attention in size.runs if runs is None else runs:
        run_dir = out / run_name(output, attention)
        speed = train_one(size, data, output, attention, run_dir, device, log=log)
        eval_path = run_dir / "eval.json"
        if eval_path.is_file():
            scores = json.loads(eval_path.read_text())
        else:
            scores = evaluate_model(run_dir, dev_de, dev_en, size.beam)
            write_bytes(eval_path, json.dumps(scores, indent=1, ensure_ascii=False).encode())
        row = {"output": output, "attention": attention, "run": str(run_dir),
               "tokens_per_s": speed.get("tokens_per_s", math.nan),
               "epochs": len(speed.get("epochs", [])),
               **{k: v for k, v in scores.items() if k != "hypotheses"}}
        log(f"{run_dir.name}: BLEU {row['bleu']:.2f} chrF {row['chrf']:.2f} support/step "
            f"{row['mean_step_support']:.1f} certified {100 * row['certified']:.1f}%")
        rows.append(row)
    if rows:  # an empty list (--prepare) leaves earlier results as they are
        write_bytes(out / "results.jsonl",
                           "".join(json.dumps(r) + "\n" for r in rows).encode())
        write_bytes(out / "results.md", results_markdown(rows).encode())
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=Path, help="Folder of the runs.")
    parser.add_argument("--smoke", action="store_true", help="The smoke size (CI, minutes).")
    parser.add_argument("--data-dir", default=None,
                        help="Folder with train.de etc. (or its parent); default: the inflect "
                             "data folder (INFLECT_DATA_DIR).")
    parser.add_argument("--run", action="append", default=None, metavar="OUTPUT/ATTENTION",
                        help="Only this run, e.g. entmax:1.33/entmax15 (repeatable).")
    parser.add_argument("--prepare", action="store_true",
                        help="Only train the shared subword model (OUT/codec.json) and stop: do "
                             "this once before starting runs in parallel processes.")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads for torch.")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    runs = None
    if args.run:
        runs = []
        for spec in args.run:
            if "/" not in spec:
                parser.error(f"--run wants OUTPUT/ATTENTION, got {spec!r}")
            output, attention = spec.split("/", 1)
            Config(output_mapping=output, attention_mapping=attention)  # validate now
            runs.append((output, attention))
    try:
        rows = run_grid(SMOKE if args.smoke else FULL, args.out, args.data_dir, args.device,
                        [] if args.prepare else runs)
    except (FileNotFoundError, ValueError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.prepare:
        print(f"wrote {args.out / 'codec.json'}")
    else:
        print(results_markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
