"""The CoNLL–SIGMORPHON 2018 task 1 metrics: exact-match accuracy and Levenshtein distance.

Cotterell et al., 2018, "The CoNLL–SIGMORPHON 2018 Shared Task: Universal Morphological
Reinflection"; defined by the official scorer ``task1/evaluation/evalm.py`` of
sigmorphon/conll2018, functions ``read``, ``eval_form`` and ``distance``:

- **accuracy**: the percentage of gold inputs whose predicted form equals the gold form, code
  point for code point (no Unicode normalisation, no case folding, spaces significant);
- **levenshtein**: the mean, over the gold inputs, of the Levenshtein distance between the gold
  and the predicted form, with unit cost for insertion, deletion and substitution of one code
  point (``rapidfuzz.distance.Levenshtein`` with its default weights computes exactly that
  distance on Python strings).

How predictions are matched to gold inputs — as the scorer does, not by position: both files are
read into a mapping ``(lemma, tag bundle) -> form`` (:func:`inflect.text.records.input_key`), so the order
of lines does not matter; a gold input with no prediction counts as the empty prediction ``""``
(accuracy 0, distance = length of the gold form); a prediction with no gold input is not scored
(we count it in ``extra``); a key that occurs twice keeps its last form and is scored once (we
count the repeats in ``gold_duplicates`` / ``pred_duplicates``). The key's tag bundle is the
UniMorph features *in the order written, repeats kept* — the scorer compares the tag text — so
``V;PST`` and ``PST;V`` are different inputs, and so are Albanian ``V;2;PL;IND;PRF`` and
``V;2;PL;IND;PRF;PRF`` (two different forms of the same lemma in ``albanian-dev``); whitespace
around a feature, which the reader removes, is ignored. The scorer rounds its two figures to 2
decimals; the DataFrame keeps them unrounded (round to 2 decimals to reproduce its output). The
macro-average is the unweighted mean of the per-language figures, as in the shared task's
overview tables.

Pure functions on :class:`inflect.text.records.Example` records and files; no model is involved.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from inflect.text.reading import language_from_filename, language_of_file, read_inflections
from inflect.text.records import Example, Format, Key, input_key

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "MACRO",
    "SCORE_COLUMNS",
    "levenshtein",
    "read_predictions",
    "score_files",
    "score_predictions",
]

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

    Like :func:`inflect.text.reading.read_inflections`, except that an empty (or whitespace-only)
    predicted form is allowed and kept as written: a model may predict the empty string, and the
    scorer reads it as such.

    Args:
        path: the file.
        language: the language of every prediction (default: from the file name, as
            :func:`inflect.text.reading.language_from_filename`).
        fmt: ``"auto"`` (:func:`inflect.text.layouts.detect_format`), ``"2018"`` or ``"2023"``.

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
        languages: one language name or alias per pair (:func:`language_label`: a new
            language's name is taken as given); default: the language each gold file's name
            gives (``german-dev`` -> ``german``), else the name itself as the pair's label
            (``gold``, ``de50-dev`` -> ``de50``): scoring needs no language, as the shared
            task's ``evalm.py`` scores any two files.
        fmt: the layout of every file: ``"auto"`` (each file's, by
            :func:`inflect.text.layouts.detect_format`), ``"2018"`` or ``"2023"``.

    Returns:
        The frame of :func:`score_predictions`.

    Raises:
        ValueError: the numbers of files and languages differ, two pairs have the same language,
            an unknown language given (:class:`inflect.text.languages.UnknownLanguageError`), a
            pair whose
            files barely overlap (fewer than :data:`MIN_MATCHED` of the gold inputs predicted
            while most predictions match no gold input: files of different languages or
            splits), or as :func:`score_predictions`.
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
        names = [language_label(name) for name in languages]
    else:
        names = _labels(gold_paths)
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"language(s) given to more than one file pair: {', '.join(repeated)}")
    gold: list[Example] = []
    pred: list[Example] = []
    for pred_path, gold_path, name in zip(pred_paths, gold_paths, names, strict=True):
        gold.extend(read_inflections(gold_path, name, fmt))
        pred.extend(read_predictions(pred_path, name, fmt))
    frame = score_predictions(pred, gold)
    _check_pairing(frame, dict(zip(names, zip(pred_paths, gold_paths, strict=True), strict=True)))
    return frame


def _labels(gold_paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    """Each gold file's language (:func:`inflect.text.reading.language_of_file`), else its name
    as a label (:func:`inflect.text.reading.language_from_filename`: ``gold``, ``de50-dev`` ->
    ``de50``); a label two files share is replaced by each one's path."""
    found = []
    for path in gold_paths:
        try:
            found.append((language_of_file(path), True))
        except ValueError:  # no language's name (or several languages'): a label
            found.append((language_from_filename(path), False))
    names = [name for name, _ in found]
    return [name if is_language or names.count(name) == 1 else str(path)
            for path, (name, is_language) in zip(gold_paths, found, strict=True)]


def language_label(name: str) -> str:
    """The language a row of scores is labelled with: a known language's shared-task name
    (``de`` -> ``german``), else the name as given (a language of the user's own, ``amharic``:
    scoring strings needs no spec, so no language is refused for being new).

    Raises:
        AmbiguousLanguageError: a name several known languages share (``kurdish``).
    """
    from inflect.text.languages import (
        AmbiguousLanguageError,
        UnknownLanguageError,
        name_key,
        resolve,
    )

    try:
        return resolve(name).name
    except AmbiguousLanguageError:
        raise
    except UnknownLanguageError:
        return name_key(name) or name


#: The least share of a language's gold inputs that must have a prediction when most of its
#: predictions match no gold input; below it, the files are taken to be mispaired.
MIN_MATCHED = 0.1


def _check_pairing(frame: pd.DataFrame, files: dict[str, tuple[Any, Any]]) -> None:
    """Refuse a pair of files that barely overlap (a prediction file of another language or
    split than its gold file would otherwise score a plausible-looking 0%), or an empty
    prediction file.

    Raises:
        ValueError: naming the language, the files and the counts.
    """
    for row in frame[frame["language"] != MACRO].itertuples(index=False):
        matched = row.n - row.missing
        if row.n and not matched and not row.extra:
            pred, gold = files[row.language]
            raise ValueError(
                f"{pred} holds no prediction: all {row.n:,} gold inputs of {gold} would score as "
                "empty; is it the right file (or did the system that wrote it fail)?"
            )
        if matched < MIN_MATCHED * row.n and row.extra > matched:
            pred, gold = files[row.language]
            raise ValueError(
                f"{pred} and {gold} barely overlap: {matched:,} of the {row.n:,} gold inputs "
                f"have a prediction and {row.extra:,} predictions match no gold input (by lemma "
                f"and tag bundle); are they of the same language ({row.language}) and split?"
            )
