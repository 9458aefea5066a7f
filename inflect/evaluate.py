"""Evaluation: the CoNLL–SIGMORPHON 2018 task 1 metrics and the sparsity statistics.

Metrics (Cotterell et al., 2018, "The CoNLL–SIGMORPHON 2018 Shared Task: Universal Morphological
Reinflection"; defined by the official scorer ``task1/evaluation/evalm.py`` of
sigmorphon/conll2018, functions ``read``, ``eval_form`` and ``distance``):

- **accuracy**: the percentage of gold inputs whose predicted form equals the gold form, code
  point for code point (no Unicode normalisation, no case folding, spaces significant);
- **levenshtein**: the mean, over the gold inputs, of the Levenshtein distance between the gold
  and the predicted form, with unit cost for insertion, deletion and substitution of one code
  point (``rapidfuzz.distance.Levenshtein`` with its default weights computes exactly that
  distance on Python strings).

How predictions are matched to gold inputs — as the scorer does, not by position: both files are
read into a mapping ``(lemma, tag bundle) -> form``, so the order of lines does not matter; a gold
input with no prediction counts as the empty prediction ``""`` (accuracy 0, distance = length of
the gold form); a prediction with no gold input is not scored (we count it in ``extra``); a key
that occurs twice keeps its last form and is scored once (we count the repeats in
``gold_duplicates`` / ``pred_duplicates``). The key's tag bundle is the UniMorph features *in
the order written, repeats kept* — the scorer compares the tag text — so ``V;PST`` and
``PST;V`` are different inputs, and so are Albanian ``V;2;PL;IND;PRF`` and
``V;2;PL;IND;PRF;PRF`` (two different forms of the same lemma in ``albanian-dev``); whitespace
around a feature, which the reader removes, is ignored. The scorer rounds its two figures to 2
decimals; the DataFrame keeps them unrounded (round to 2 decimals to reproduce its output). The
macro-average is the unweighted mean of the per-language figures, as in the shared task's
overview tables.

Sparsity statistics (as discussed in Peters, Niculae & Martins, 2019, "Sparse Sequence-to-Sequence
Models", for inflection): pure functions over simple inputs — per-input lists of string probabilities,
certificates, per-step output support sizes, attention matrices — plus
:func:`sparsity_from_search`, which collects those inputs from :mod:`inflect.search` results.

Evaluating a model or an ensemble (:func:`evaluate_checkpoints`, :func:`evaluate_predictor`):
the gold inputs are predicted by :class:`inflect.predict.Predictor` (beam 5, widened where the
support is not certified), the most probable forms are scored as above, and the statistics are
added per language; the output support sizes of the best string's steps come from a
teacher-forced pass of the model along it (:func:`teacher_forced`). :func:`paper_table` turns
per-run accuracies into the shape of Table 1 of Peters, Niculae & Martins (2019).
"""

from __future__ import annotations

import math
import os
import tempfile
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inflect.data import (
    Example,
    Format,
    TagBundle,
    language_from_filename,
    read_examples,
    read_inflections,
)

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import torch

#: The ``language`` value of the macro-average row of :func:`score_predictions`.
MACRO = "macro-average"
#: Columns of the frame returned by :func:`score_predictions`, in order.
SCORE_COLUMNS: tuple[str, ...] = (
    "language",
    "n",
    "accuracy",
    "levenshtein",
    "missing",
    "extra",
    "gold_duplicates",
    "pred_duplicates",
)

Key = tuple[str, str, tuple[str, ...]]


# --------------------------------------------------------------------------------------------
# the shared task's metrics


def levenshtein(gold: str, prediction: str) -> int:
    """Levenshtein distance between two forms, in code points (evalm.py's ``distance``).

    Unit costs for inserting, deleting and substituting one code point; no normalisation, so a
    decomposed ``e`` + U+0301 is at distance 2 from a precomposed U+00E9 and 1 from ``e``.

    Args:
        gold: the gold form.
        prediction: the predicted form ("" for a missing prediction).

    Returns:
        The distance, an int >= 0.
    """
    from rapidfuzz.distance import Levenshtein

    return int(Levenshtein.distance(gold, prediction))


def input_key(example: Example) -> Key:
    """The key by which a prediction is matched to a gold input.

    Returns:
        ``(language, lemma, features)``: the lemma exactly as written and the UniMorph features
        in the order written, repeats kept (the scorer compares the tag text), whitespace around
        each feature removed.
    """
    return example.language, example.lemma, _written_features(example.tags)


def _written_features(tags: TagBundle) -> tuple[str, ...]:
    return tuple(feature.strip() for feature in tags.text.split(";"))


def _where(example: Example) -> str:
    source = example.source or "<examples>"
    return f"{source}:{example.line}" if example.line is not None else source


def _forms_by_key(
    examples: Iterable[Example], what: str
) -> tuple[dict[Key, str], dict[str, int], list[str]]:
    """``key -> form`` (the last one wins, as in evalm.py's ``read``), repeats per language and
    languages in order of first appearance."""
    forms: dict[Key, str] = {}
    repeats: dict[str, int] = {}
    languages: dict[str, None] = {}
    for example in examples:
        if example.form is None:
            raise ValueError(
                f"{_where(example)}: {what} example has no form (a covered file?) "
                f"({example.lemma!r}, {example.tags.text!r})"
            )
        key = input_key(example)
        languages.setdefault(example.language, None)
        if key in forms:
            repeats[example.language] = repeats.get(example.language, 0) + 1
        forms[key] = example.form
        repeats.setdefault(example.language, 0)
    return forms, repeats, list(languages)


def score_predictions(
    pred_examples: Iterable[Example], gold_examples: Iterable[Example]
) -> pd.DataFrame:
    """Score predictions against gold forms, per language, as the shared-task scorer does.

    Args:
        pred_examples: the predictions (``form`` is the predicted form; ``""`` allowed).
        gold_examples: the gold inputs with their forms; the languages are those of
            ``Example.language``.

    Returns:
        One row per gold language (in order of first appearance) and a last row whose language
        is :data:`MACRO`; columns (see :data:`SCORE_COLUMNS`):
        ``language`` (str); ``n`` (int, distinct gold inputs scored); ``accuracy`` (float,
        percent of exact matches, 0–100); ``levenshtein`` (float, mean distance in code points);
        ``missing`` (int, gold inputs without a prediction, scored as ``""``); ``extra`` (int,
        predictions matching no gold input, not scored); ``gold_duplicates`` /
        ``pred_duplicates`` (int, repeated keys; the last form was used). The macro row has the
        unweighted means of accuracy and levenshtein over languages and the sums of the counts.

    Raises:
        ValueError: no gold example; an example without a form (naming file and line); or
            predictions for a language that has no gold example.
    """
    import pandas as pd

    gold, gold_repeats, languages = _forms_by_key(gold_examples, "gold")
    if not gold:
        raise ValueError("no gold examples to score against")
    pred, pred_repeats, pred_languages = _forms_by_key(pred_examples, "prediction")
    unknown = [lang for lang in pred_languages if lang not in gold_repeats]
    if unknown:
        raise ValueError(
            f"predictions for language(s) with no gold examples: {', '.join(unknown)} "
            f"(gold languages: {', '.join(languages)})"
        )
    totals = {lang: [0, 0, 0, 0, 0] for lang in languages}  # n, correct, distance, missing, extra
    for key, form in gold.items():
        row = totals[key[0]]
        guess = pred.get(key)
        if guess is None:
            row[3] += 1
            guess = ""
        row[0] += 1
        row[1] += form == guess
        row[2] += levenshtein(form, guess)
    for key in pred:
        if key not in gold:
            totals[key[0]][4] += 1
    rows = []
    for lang in languages:
        n, correct, distance, missing, extra = totals[lang]
        rows.append(
            (
                lang,
                n,
                100.0 * correct / n,
                distance / n,
                missing,
                extra,
                gold_repeats.get(lang, 0),
                pred_repeats.get(lang, 0),
            )
        )
    frame = pd.DataFrame(rows, columns=list(SCORE_COLUMNS))
    macro = (
        MACRO,
        int(frame["n"].sum()),
        float(frame["accuracy"].mean()),
        float(frame["levenshtein"].mean()),
        *(int(frame[c].sum()) for c in SCORE_COLUMNS[4:]),
    )
    frame = pd.concat(
        [frame, pd.DataFrame([macro], columns=list(SCORE_COLUMNS))], ignore_index=True
    )
    for column in ("n", *SCORE_COLUMNS[4:]):
        frame[column] = frame[column].astype("int64")
    for column in ("accuracy", "levenshtein"):
        frame[column] = frame[column].astype("float64")
    return frame


def read_predictions(
    path: str | os.PathLike[str], language: str | None = None, fmt: Format = "auto"
) -> list[Example]:
    """Read a predictions file, ``lemma<TAB>form<TAB>tags`` (the scorer's guess format) or the
    2023 layout ``lemma<TAB>tags<TAB>form``.

    Like :func:`inflect.data.read_inflections`, except that an empty (or whitespace-only)
    predicted form is allowed and kept as written: a model may predict the empty string, and the
    scorer reads it as such.

    Args:
        path: the file.
        language: the language of every prediction (default: from the file name, as
            :func:`inflect.data.language_from_filename`).
        fmt: ``"auto"`` (:func:`inflect.data.detect_format`), ``"2018"`` or ``"2023"``.

    Returns:
        The predictions in file order.

    Raises:
        DataFormatError: the first malformed line (file, line, value).
        OSError: the file cannot be read.
    """
    return read_inflections(path, language, fmt, empty_form=True)


def score_files(
    pred_paths: Sequence[str | os.PathLike[str]],
    gold_paths: Sequence[str | os.PathLike[str]],
    languages: Sequence[str] | None = None,
    fmt: Format = "auto",
) -> pd.DataFrame:
    """Score prediction files against gold files, paired in order, one language per pair.

    Args:
        pred_paths: prediction files (``lemma<TAB>form<TAB>tags``, see :func:`read_predictions`).
        gold_paths: gold files, one per prediction file.
        languages: one language name or alias per pair, resolved with
            :func:`inflect.languages.resolve`; default: each gold file's name
            (``german-dev`` -> ``german``).
        fmt: the layout of every file: ``"auto"`` (each file's, by
            :func:`inflect.data.detect_format`), ``"2018"`` or ``"2023"``.

    Returns:
        The frame of :func:`score_predictions`.

    Raises:
        ValueError: the numbers of files and languages differ, two pairs have the same language,
            an unknown language (:class:`inflect.languages.UnknownLanguageError`), or as
            :func:`score_predictions`.
        DataFormatError: a malformed line (file, line, value).
        OSError: a file cannot be read.
    """
    if len(pred_paths) != len(gold_paths):
        raise ValueError(
            f"{len(pred_paths)} prediction file(s) but {len(gold_paths)} gold file(s); give one "
            f"--pred per --gold, in the same order"
        )
    if languages:
        if len(languages) != len(gold_paths):
            raise ValueError(
                f"{len(languages)} language(s) for {len(gold_paths)} gold file(s); give one "
                f"--lang per --gold, or none to take the language from the gold file names"
            )
        from inflect.languages import resolve

        names = [resolve(name).name for name in languages]
    else:
        names = [language_from_filename(path) for path in gold_paths]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"language(s) given to more than one file pair: {', '.join(repeated)}")
    gold: list[Example] = []
    pred: list[Example] = []
    for pred_path, gold_path, name in zip(pred_paths, gold_paths, names, strict=True):
        gold.extend(read_inflections(gold_path, name, fmt))
        pred.extend(read_predictions(pred_path, name, fmt))
    return score_predictions(pred, gold)


# --------------------------------------------------------------------------------------------
# writing results


def _atomic_write(path: Path, write: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    os.close(handle)
    try:
        write(temp)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return path


def write_parquet(frame: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write a DataFrame as Parquet atomically (temporary file in the same folder + rename).

    Returns:
        The path written.
    """
    return _atomic_write(Path(path), lambda temp: frame.to_parquet(temp, index=False))


def write_csv(frame: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write a DataFrame as UTF-8 CSV atomically (temporary file in the same folder + rename).

    Returns:
        The path written.
    """
    return _atomic_write(Path(path), lambda temp: frame.to_csv(temp, index=False, encoding="utf-8"))


def write_text(text: str, path: str | os.PathLike[str]) -> Path:
    """Write UTF-8 text atomically (temporary file in the same folder + rename).

    Returns:
        The path written.
    """
    return _atomic_write(Path(path), lambda temp: Path(temp).write_text(text, encoding="utf-8"))


def write_results(frame: pd.DataFrame, prefix: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Write ``PREFIX.parquet`` and ``PREFIX.csv`` (each atomically).

    Returns:
        The two paths.
    """
    prefix = str(prefix)
    return write_parquet(frame, prefix + ".parquet"), write_csv(frame, prefix + ".csv")


# --------------------------------------------------------------------------------------------
# sparsity statistics (pure functions)


def _nonzero(probabilities: Sequence[float]) -> list[float]:
    values = [float(p) for p in probabilities]
    for p in values:
        if not (p >= 0.0) or math.isinf(p):
            raise ValueError(f"a probability must be finite and >= 0, got {p!r}")
    return [p for p in values if p > 0.0]


def single_string_share(probabilities: Sequence[Sequence[float]], atol: float = 1e-6) -> float:
    """Share of inputs whose whole probability is on one string.

    An input counts when exactly one string has nonzero probability and that probability is at
    least ``1 - atol`` (so an incomplete list whose only string holds half the mass does not).

    Args:
        probabilities: per input, the probabilities of the strings found (zeros are ignored).
        atol: tolerance on the sum-to-one of float32 step probabilities.

    Returns:
        A fraction in [0, 1]; NaN for no input.

    Raises:
        ValueError: a negative, NaN or infinite probability.
    """
    if not probabilities:
        return math.nan
    hits = 0
    for probs in probabilities:
        nonzero = _nonzero(probs)
        hits += len(nonzero) == 1 and nonzero[0] >= 1.0 - atol
    return hits / len(probabilities)


def mean_support_strings(probabilities: Sequence[Sequence[float]]) -> float:
    """Mean number of nonzero-probability strings per input.

    Args:
        probabilities: per input, the probabilities of the strings found (zeros are ignored).
            Where a list was capped (``SupportResult.more_than_cap``) the count is a lower bound.

    Returns:
        The mean (float); NaN for no input.

    Raises:
        ValueError: a negative, NaN or infinite probability.
    """
    if not probabilities:
        return math.nan
    return sum(len(_nonzero(p)) for p in probabilities) / len(probabilities)


_CERTIFICATES = ("full_support", "mode_only", "none")


def _certificate_name(certificate: Any) -> str:
    value = getattr(certificate, "value", certificate)
    name = "none" if value is None else str(value).lower()
    if name not in _CERTIFICATES:
        raise ValueError(
            f"unknown certificate {certificate!r}; expected one of {', '.join(_CERTIFICATES)}"
        )
    return name


def certificate_shares(certificates: Sequence[Any]) -> dict[str, float]:
    """Share of inputs per beam-search certificate.

    Args:
        certificates: per input, an :class:`inflect.search.Certificate` or its value
            (``"full_support"``, ``"mode_only"``, ``"none"``; case-insensitive); None means
            no certificate (greedy search) and counts as ``"none"``.

    Returns:
        ``{"full_support": f, "mode_only": f, "none": f}``, fractions in [0, 1] summing to 1;
        NaN each for no input.

    Raises:
        ValueError: an unknown certificate.
    """
    if not certificates:
        return dict.fromkeys(_CERTIFICATES, math.nan)
    counts = dict.fromkeys(_CERTIFICATES, 0)
    for certificate in certificates:
        counts[_certificate_name(certificate)] += 1
    return {name: count / len(certificates) for name, count in counts.items()}


def support_sizes(step_probs: torch.Tensor | np.ndarray) -> list[int]:
    """The output support size of each decoding step: nonzero entries per row.

    Args:
        step_probs: float array or tensor [T, V], the output distribution of each of T steps.

    Returns:
        T ints (exact zeros only count as outside the support).
    """
    import numpy as np

    array = _as_numpy(step_probs)
    if array.ndim != 2:
        raise ValueError(f"expected a [T, V] matrix of step probabilities, got shape {array.shape}")
    return [int(c) for c in np.count_nonzero(array, axis=1)]


def mean_step_support(step_supports: Sequence[Sequence[int]]) -> float:
    """Mean output support size per decoding step, pooled over the steps of all inputs.

    Args:
        step_supports: per input, the number of nonzero entries of the output distribution at
            each decoding step (see :func:`support_sizes`); 1 means the step was deterministic.

    Returns:
        ``sum of sizes / number of steps``; NaN when there is no step.

    Raises:
        ValueError: a size < 1 (a distribution has at least one nonzero entry).
    """
    total = steps = 0
    for sizes in step_supports:
        for size in sizes:
            if int(size) < 1:
                raise ValueError(f"a step's support size must be >= 1, got {size!r}")
            total += int(size)
            steps += 1
    return total / steps if steps else math.nan


def _as_numpy(matrix: Any) -> np.ndarray:
    import numpy as np

    if hasattr(matrix, "detach"):
        matrix = matrix.detach().to("cpu").float().numpy()
    return np.asarray(matrix)


def attention_statistics(
    attentions: Sequence[torch.Tensor | np.ndarray],
    source_lengths: Sequence[int] | None = None,
) -> tuple[float, float]:
    """Attention sparsity: attended source positions per target symbol, and density.

    Args:
        attentions: per input, the attention weights [T, S] (row t: the weights of the step that
            emitted target symbol t, e.g. ``Hypothesis.attention``).
        source_lengths: per input, the true source length; columns beyond it (batch padding)
            are left out. Default: all S columns count.

    Returns:
        ``(mean attended, density)``: the number of nonzero weights divided by the number of
        target symbols (rows), pooled over all inputs; and the nonzero weights divided by all
        weights (rows x true source length), pooled. NaN each when there is no row.

    Raises:
        ValueError: a matrix that is not 2-D, a source length out of range, or a mismatch in
            the number of inputs.
    """
    import numpy as np

    if source_lengths is not None and len(source_lengths) != len(attentions):
        raise ValueError(
            f"{len(attentions)} attention matrices but {len(source_lengths)} source lengths"
        )
    nonzero = rows = cells = 0
    for i, matrix in enumerate(attentions):
        array = _as_numpy(matrix)
        if array.ndim != 2:
            raise ValueError(f"attention {i}: expected a [T, S] matrix, got shape {array.shape}")
        if source_lengths is not None:
            length = int(source_lengths[i])
            if not 0 < length <= array.shape[1]:
                raise ValueError(
                    f"attention {i}: source length {length} outside 1..{array.shape[1]}"
                )
            array = array[:, :length]
        nonzero += int(np.count_nonzero(array))
        rows += array.shape[0]
        cells += array.size
    if rows == 0:
        return math.nan, math.nan
    return nonzero / rows, nonzero / cells


@dataclass(frozen=True)
class SparsityStats:
    """The sparsity statistics of one evaluation (see the module docstring).

    Attributes:
        inputs: inputs described.
        single_string: share of inputs whose whole probability is on one string.
        full_support: share of inputs whose beam search is certified exact with full support.
        mode_only: share certified exact for the mode only.
        mean_strings: mean number of nonzero-probability strings per input.
        incomplete: inputs whose list of strings was cut (cap, length or budget), so
            ``mean_strings`` is a lower bound when this is > 0.
        mean_step_support: mean output support size per decoding step.
        mean_attended: mean attended source positions per target symbol.
        attention_density: nonzero attention weights over all weights.
    """

    inputs: int
    single_string: float
    full_support: float
    mode_only: float
    mean_strings: float
    incomplete: int
    mean_step_support: float
    mean_attended: float
    attention_density: float

    def to_dict(self) -> dict[str, float | int]:
        """The statistics as a flat dict (e.g. to add as DataFrame columns)."""
        return asdict(self)


def sparsity_statistics(
    probabilities: Sequence[Sequence[float]],
    certificates: Sequence[Any],
    step_supports: Sequence[Sequence[int]],
    attentions: Sequence[torch.Tensor | np.ndarray],
    source_lengths: Sequence[int] | None = None,
    incomplete: int = 0,
) -> SparsityStats:
    """All sparsity statistics from simple inputs (see the functions it calls).

    Raises:
        ValueError: as the functions it calls.
    """
    shares = certificate_shares(certificates)
    attended, density = attention_statistics(attentions, source_lengths)
    return SparsityStats(
        inputs=len(probabilities),
        single_string=single_string_share(probabilities),
        full_support=shares["full_support"],
        mode_only=shares["mode_only"],
        mean_strings=mean_support_strings(probabilities),
        incomplete=incomplete,
        mean_step_support=mean_step_support(step_supports),
        mean_attended=attended,
        attention_density=density,
    )


# ---- ROOM FOR THE SEARCH ENGINEER ----------------------------------------------------------
# The adapter from inflect.search results to the pure functions above. It reads only the
# documented fields of SupportResult / SearchResult / Hypothesis (duck-typed, so this module
# does not import the search); the per-step output support sizes are not part of the search
# results and are passed in. Adjust here if the search's result types change.


def sparsity_from_search(
    supports: Sequence[Any],
    beams: Sequence[Any],
    step_supports: Sequence[Sequence[int]],
    source_lengths: Sequence[int] | None = None,
) -> SparsityStats:
    """Sparsity statistics of a model's search results on a set of inputs.

    Args:
        supports: per input, an :class:`inflect.search.SupportResult` (``hypotheses[].prob``,
            ``complete``).
        beams: per input, an :class:`inflect.search.SearchResult` (``certificate``, and
            ``hypotheses[0].attention`` [T, S] for the attention statistics; an input with no
            finished hypothesis or no attention contributes no attention row).
        step_supports: per input, the output support size at each decoding step of the best
            string (e.g. :func:`support_sizes` of the step distributions along it).
        source_lengths: per input, the true source length (padding columns left out).

    Returns:
        The statistics.

    Raises:
        ValueError: the three per-input sequences differ in length, or as
            :func:`sparsity_statistics`.
    """
    if not len(supports) == len(beams) == len(step_supports):
        raise ValueError(
            f"per-input lengths differ: {len(supports)} support results, {len(beams)} beam "
            f"results, {len(step_supports)} step-support lists"
        )
    probabilities = [[h.prob for h in s.hypotheses] for s in supports]
    attentions, lengths = [], []
    for i, beam in enumerate(beams):
        best = beam.hypotheses[0] if beam.hypotheses else None
        if best is not None and best.attention is not None:
            attentions.append(best.attention)
            if source_lengths is not None:
                lengths.append(source_lengths[i])
    return sparsity_statistics(
        probabilities,
        [b.certificate for b in beams],
        step_supports,
        attentions,
        lengths if source_lengths is not None else None,
        incomplete=sum(not s.complete for s in supports),
    )


# --------------------------------------------------------------------------------------------
# evaluating a model (or an ensemble): predict with the Predictor, score, add the statistics

#: Sparsity columns added by :func:`evaluate_predictor` after :data:`SCORE_COLUMNS`.
SPARSITY_COLUMNS: tuple[str, ...] = (
    "inputs",
    "rejected",
    "single_string",
    "full_support",
    "mode_only",
    "mean_strings",
    "incomplete",
    "mean_step_support",
    "mean_attended",
    "attention_density",
)


def checkpoint_members(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The checkpoints of a model or an ensemble.

    Each path is a checkpoint (a ``.safetensors`` file, or a folder holding
    ``model.safetensors``), or a folder of members: its immediate subfolders holding a
    ``model.safetensors``, in name order.

    Returns:
        The member paths, in order (at least one).

    Raises:
        FileNotFoundError: a path that does not exist, or a folder with no checkpoint in it or
            in its subfolders.
    """
    from inflect.checkpoint import MODEL_FILE

    members: list[Path] = []
    for given in paths:
        path = Path(given)
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such checkpoint or folder")
        if path.is_file() or (path / MODEL_FILE).is_file():
            members.append(path)
            continue
        found = sorted(d for d in path.iterdir() if (d / MODEL_FILE).is_file())
        if not found:
            raise FileNotFoundError(
                f"{path}: neither a checkpoint ({MODEL_FILE}) nor a folder of checkpoints"
            )
        members.extend(found)
    if not members:
        raise FileNotFoundError("no checkpoint given")
    return members


def teacher_forced(
    model: Any, batch: Any, outputs: Sequence[Sequence[int]]
) -> list[tuple[list[int], torch.Tensor]]:
    """Run a Decodable along given output strings and record each step's output support size.

    The decoder is fed BOS, then the string's own symbols (teacher forcing), for
    ``len(tokens) + 1`` steps: one per emitted symbol and the last one that emits EOS — the same
    steps (and so the same distributions) as the search that found the string.

    Args:
        model: a Decodable (:class:`inflect.model.Seq2Seq` or :class:`inflect.search.Ensemble`).
        batch: its encoded batch of B inputs.
        outputs: B target id sequences without BOS/EOS (e.g. ``Hypothesis.tokens``).

    Returns:
        Per input: the number of nonzero output probabilities at each of the ``len + 1`` steps
        (ints >= 1), and the attention rows of those steps, float32 [len + 1, S] on the CPU.

    Raises:
        ValueError: ``len(outputs)`` differs from the batch size.
    """
    import torch

    n = model.batch_size(batch)
    if len(outputs) != n:
        raise ValueError(f"{len(outputs)} output strings for a batch of {n} inputs")
    steps = max((len(o) for o in outputs), default=0) + 1
    sizes: list[list[int]] = [[] for _ in range(n)]
    rows: list[list[torch.Tensor]] = [[] for _ in range(n)]
    with torch.inference_mode():
        state = model.start(batch)
        prev = torch.full((n,), model.bos_id, dtype=torch.long)
        for t in range(steps):
            probs, attention, state = model.step(state, prev)
            counts = torch.count_nonzero(probs, dim=-1).tolist()
            attention = attention.detach().float().cpu()
            for i, out in enumerate(outputs):
                if t <= len(out):
                    sizes[i].append(int(counts[i]))
                    rows[i].append(attention[i])
            prev = torch.tensor(
                [out[t] if t < len(out) else model.eos_id for out in outputs], dtype=torch.long
            )
    return [(s, torch.stack(r)) for s, r in zip(sizes, rows, strict=True)]


@dataclass
class Evaluation:
    """What :func:`evaluate_predictor` computed.

    Attributes:
        frame: one row per language and a :data:`MACRO` row; columns :data:`SCORE_COLUMNS`,
            then :data:`SPARSITY_COLUMNS`, then ``members`` (ensemble size) and ``beam``.
        gold: the gold inputs, in order.
        searched: per gold input, the :class:`inflect.predict.Searched` (record + search result),
            or None where the model could not take the input (``rejected``; e.g. a UniMorph
            feature unseen in training), which is scored as an empty prediction.
        errors: per rejected input, the reason.
    """

    frame: pd.DataFrame
    gold: list[Example]
    searched: list[Any]
    errors: list[str]

    @property
    def predictions(self) -> list[Any]:
        """The :class:`inflect.predict.Prediction` records (rejected inputs left out)."""
        return [s.prediction for s in self.searched if s is not None]


def evaluate_predictor(predictor: Any, gold: Sequence[Example]) -> Evaluation:
    """Predict every gold input with a :class:`inflect.predict.Predictor`, score the most probable
    forms with :func:`score_predictions` and add the sparsity statistics per language.

    The statistics of an input use its record (the forms and the certificate of
    :meth:`Predictor.run_detailed <inflect.predict.Predictor.run_detailed>`), the attention of
    the best token string (``beam.best.attention``, padding columns left out) and that string's
    per-step output support sizes (:func:`teacher_forced`). ``incomplete`` counts records that
    are not certified full support (their ``mean_strings`` contribution is a lower bound).
    The :data:`MACRO` row holds the unweighted mean over languages of each share and mean, and
    the sums of the counts.

    Args:
        predictor: the predictor (its beam size, support mode and members are used as set).
        gold: the gold inputs with their forms.

    Returns:
        An :class:`Evaluation`.

    Raises:
        ValueError: no gold input, or as :func:`score_predictions`.
        UnknownLanguageError: a gold language with no spec.
    """
    import pandas as pd

    from inflect.predict import InputError
    from inflect.vocab import UnknownSymbolWarning

    gold = list(gold)
    if not gold:
        raise ValueError("no gold examples to evaluate on")
    searched: list[Any] = [None] * len(gold)
    errors: list[str] = []
    pending: list[tuple[int, Any]] = []

    def flush() -> None:
        if not pending:
            return
        items = [item for _, item in pending]
        results = predictor.run_detailed(items)
        best = [r.beam.best for r in results]
        forced = teacher_forced(
            predictor.decodable, predictor.batch(items), [h.tokens if h else [] for h in best]
        )
        for (index, _), result, h, (sizes, _rows) in zip(
            pending, results, best, forced, strict=True
        ):
            searched[index] = result
            step_supports[index] = sizes if h is not None else []
        pending.clear()

    step_supports: list[list[int]] = [[] for _ in gold]
    for index, example in enumerate(gold):
        try:
            with warnings.catch_warnings():  # unseen symbols: kept in the record's warnings
                warnings.simplefilter("ignore", UnknownSymbolWarning)
                pending.append((index, predictor.prepare(example)))
        except InputError as exc:
            errors.append(str(exc))
            continue
        if len(pending) >= predictor.chunk_size:
            flush()
    flush()

    predictions = []
    for example, result in zip(gold, searched, strict=True):
        if result is not None:
            best = result.prediction.best
            predictions.append(
                Example(example.lemma, example.tags, best.form if best else "", example.language)
            )
    frame = score_predictions(predictions, gold)
    rows = []
    for language in frame["language"][:-1]:
        chosen = [i for i, e in enumerate(gold) if e.language == language]
        done = [i for i in chosen if searched[i] is not None]
        records = [searched[i].prediction for i in done]
        attentions, lengths = [], []
        for i in done:
            h = searched[i].beam.best
            if h is not None and h.attention is not None:
                attentions.append(h.attention)
                lengths.append(len(searched[i].prepared.symbols))
        stats = sparsity_statistics(
            [[f.probability for f in r.forms] for r in records],
            [r.certificate for r in records],
            [step_supports[i] for i in done],
            attentions,
            lengths,
            incomplete=sum(not r.complete for r in records),
        ).to_dict()
        stats["rejected"] = len(chosen) - len(done)
        rows.append(stats)
    stats_frame = pd.DataFrame(rows, columns=list(SPARSITY_COLUMNS))
    counts = ("inputs", "rejected", "incomplete")
    macro = {c: (int(stats_frame[c].sum()) if c in counts else float(stats_frame[c].mean()))
             for c in SPARSITY_COLUMNS}
    stats_frame = pd.concat([stats_frame, pd.DataFrame([macro])], ignore_index=True)
    for column in SPARSITY_COLUMNS:
        stats_frame[column] = stats_frame[column].astype("int64" if column in counts else "float64")
    frame = pd.concat([frame, stats_frame], axis=1)
    frame["members"] = len(predictor.members)
    frame["beam"] = predictor.beam_size
    return Evaluation(frame, gold, searched, errors)


def load_gold(
    languages: Sequence[str] = (),
    split: str = "dev",
    gold_files: Sequence[str | os.PathLike[str]] = (),
    data_dir: str | os.PathLike[str] | None = None,
    fmt: Format = "auto",
) -> list[Example]:
    """The gold inputs of an evaluation: files, or a shared-task split per language.

    Args:
        languages: language names or aliases; with ``gold_files``, one per file (default: from
            the file names), else the languages whose ``split`` is read.
        split: a split of :func:`inflect.data.load_split` (``"dev"``, ...), read for each of
            ``languages`` when no gold file is given.
        gold_files: gold files (``lemma<TAB>form<TAB>tags``).
        data_dir: the data folder for ``split`` (default: :func:`inflect.datasets.data_dir`).
        fmt: the layout of ``gold_files``: ``"auto"`` (:func:`inflect.data.detect_format`),
            ``"2018"``, ``"2023"`` or ``"covered"``.

    Raises:
        ValueError: neither files nor languages, or mismatched counts; UnknownLanguageError.
        FileNotFoundError: a missing split file; DataFormatError: a malformed line.
    """
    from inflect.data import load_split
    from inflect.languages import resolve

    if gold_files:
        if languages and len(languages) != len(gold_files):
            raise ValueError(
                f"{len(languages)} language(s) for {len(gold_files)} gold file(s); give one "
                "--lang per --gold, or none to take the language from the file names"
            )
        names = [resolve(n).name for n in
                 (languages or [language_from_filename(p) for p in gold_files])]
        gold: list[Example] = []
        for path, name in zip(gold_files, names, strict=True):
            gold.extend(read_examples(path, name, fmt))
        return gold
    if not languages:
        raise ValueError("give the language(s) (--lang) or gold files (--gold)")
    gold = []
    for name in languages:
        gold.extend(load_split(resolve(name).name, split, data_dir))
    return gold


def evaluate_checkpoints(
    models: Sequence[str | os.PathLike[str]],
    languages: Sequence[str] = (),
    split: str = "dev",
    gold_files: Sequence[str | os.PathLike[str]] = (),
    *,
    data_dir: str | os.PathLike[str] | None = None,
    beam_size: int = 5,
    device: str = "cpu",
    fmt: Format = "auto",
) -> Evaluation:
    """Evaluate checkpoints (one model, or the members of an ensemble) on gold inputs.

    Args:
        models: checkpoints or folders of members (see :func:`checkpoint_members`); several
            form an :class:`inflect.search.Ensemble`.
        languages, split, gold_files, data_dir, fmt: the gold inputs (see :func:`load_gold`).
        beam_size: beam size k (the predictor widens it where the support is not certified).
        device: torch device of the models.

    Returns:
        As :func:`evaluate_predictor`.

    Raises:
        FileNotFoundError, CheckpointError, ValueError: as the functions called.
    """
    from inflect.predict import Predictor

    predictor = Predictor.from_checkpoints(
        checkpoint_members(models), device=device, beam_size=beam_size
    )
    return evaluate_predictor(predictor, load_gold(languages, split, gold_files, data_dir, fmt))


# --------------------------------------------------------------------------------------------
# the paper's table (Peters, Niculae & Martins 2019, Table 1: inflection accuracy)

#: Columns of the long-format results that :func:`paper_table` reads.
GRID_COLUMNS: tuple[str, ...] = ("setting", "output", "attention", "language", "member",
                                 "accuracy")
#: ``member`` value of an ensemble's row (other rows: ``"seed <n>"``).
ENSEMBLE = "ensemble"


def paper_table(results: pd.DataFrame, settings: Sequence[str] = ("high", "medium")) -> pd.DataFrame:
    """The paper's table shape from per-run accuracies.

    Args:
        results: long format, one row per (setting, output mapping, attention mapping, language,
            member) with the accuracy in percent (see :data:`GRID_COLUMNS`); ``member`` is
            ``"seed <n>"`` for a single model and :data:`ENSEMBLE` for the ensemble of the seeds.
        settings: the column groups, in order (those absent from ``results`` are left out).

    Returns:
        One row per (output, attention), in order of first appearance; columns ``output``,
        ``attention``, then per setting ``"<setting> mean"`` (per language the mean over seeds,
        then the unweighted mean over languages) and ``"<setting> ensemble"`` (the ensemble's
        accuracy, macro-averaged over languages); NaN where a cell has no run.

    Raises:
        ValueError: a missing column.
    """
    import pandas as pd

    missing = [c for c in GRID_COLUMNS if c not in results.columns]
    if missing:
        raise ValueError(f"results lack column(s) {', '.join(missing)}")
    rows = list(dict.fromkeys(zip(results["output"], results["attention"], strict=True)))
    present = [s for s in settings if s in set(results["setting"])]
    single = results[results["member"] != ENSEMBLE]
    ensemble = results[results["member"] == ENSEMBLE]
    keys = ["setting", "output", "attention"]
    mean = (single.groupby([*keys, "language"])["accuracy"].mean()
            .groupby(level=keys).mean())
    ens = ensemble.groupby([*keys, "language"])["accuracy"].mean().groupby(level=keys).mean()
    table = []
    for output, attention in rows:
        row: dict[str, Any] = {"output": output, "attention": attention}
        for setting in present:
            row[f"{setting} mean"] = float(mean.get((setting, output, attention), math.nan))
            row[f"{setting} ensemble"] = float(ens.get((setting, output, attention), math.nan))
        table.append(row)
    columns = ["output", "attention"] + [f"{s} {k}" for s in present for k in ("mean", ENSEMBLE)]
    return pd.DataFrame(table, columns=columns)
