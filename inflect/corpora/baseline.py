"""The official baseline of CoNLL–SIGMORPHON 2018 task 1 on the dev sets, per language and setting.

The shared task's non-neural baseline (Cotterell et al., 2018, "The CoNLL–SIGMORPHON 2018 Shared
Task: Universal Morphological Reinflection") scored on each language's dev set, kept as a CSV
file ``conll2018-task1-baseline-dev.csv`` with columns ``language, setting, accuracy,
levenshtein`` (accuracy in percent, mean Levenshtein distance), beside or inside the data folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: File name of the baseline table.
BASELINE_FILE = "conll2018-task1-baseline-dev.csv"
#: Its columns.
BASELINE_COLUMNS: tuple[str, ...] = ("language", "setting", "accuracy", "levenshtein")


def read_baseline(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read the baseline table.

    Args:
        path: the CSV file (header ``language,setting,accuracy,levenshtein``).

    Returns:
        One row per language and setting: ``language`` (str), ``setting`` (str), ``accuracy``
        (float64, percent), ``levenshtein`` (float64).

    Raises:
        OSError: the file cannot be read.
        ValueError: a missing column or a value that is not a number, naming the file and line.
    """
    import io
    from pathlib import Path

    import pandas as pd

    from inflect.text.encodings import decode_text

    text, why = decode_text(Path(path).read_bytes())
    if text is None:
        raise ValueError(
            f"{path}: not UTF-8 text, {why}; the baseline table is a UTF-8 CSV file with the "
            "columns language,setting,accuracy,levenshtein"
        )
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    missing = [c for c in BASELINE_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {', '.join(missing)}")
    for column in ("accuracy", "levenshtein"):
        values = pd.to_numeric(frame[column], errors="coerce")
        bad = values.isna()
        if bad.any():
            row = int(bad.idxmax())
            raise ValueError(f"{path}:{row + 2}: {column} {frame[column][row]!r} is not a number")
        frame[column] = values.astype("float64")
    return frame[list(BASELINE_COLUMNS)]


def find_baseline(data_dir: str | os.PathLike[str] | None = None) -> Path | None:
    """The baseline table inside the data folder or beside it (its parent folder), or None.

    Args:
        data_dir: the data folder (default: :func:`inflect.corpora.manifests.data_dir`).
    """
    from inflect.corpora.manifests import data_dir as resolve

    folder = resolve(data_dir)
    for candidate in (folder / BASELINE_FILE, folder.parent / BASELINE_FILE):
        if candidate.is_file():
            return candidate
    return None


def official_baseline(
    path: str | os.PathLike[str] | None = None, data_dir: str | os.PathLike[str] | None = None
) -> pd.DataFrame | None:
    """:func:`read_baseline` of ``path``, else of :func:`find_baseline`; None where there is none.

    Raises:
        OSError, ValueError: as :func:`read_baseline`.
    """
    found = Path(path) if path is not None else find_baseline(data_dir)
    return None if found is None else read_baseline(found)


#: The folder of the official results: every 2018 system's test accuracy per language, a TSV
#: file per setting (``high.tsv``, ...; a row per language, a column per system).
RESULTS_FOLDER = "conll2018-task1-results"
#: The 2018 winner of the high and medium settings (Makarov & Clematide 2018, UZH).
WINNER = "uzh-01"


def system_accuracy(setting: str, system: str = WINNER,
                    data_dir: str | os.PathLike[str] | None = None) -> dict[str, float]:
    """A 2018 system's test accuracy (percent) per language of ``setting``, from
    ``conll2018-task1-results/SETTING.tsv`` inside or beside the data folder (the official
    results sheet: a row per language, its first column the language, a column per system;
    test figures, to put beside dev figures only as anchors).

    Args:
        setting: ``high``, ``medium`` or ``low``.
        system: the column (default :data:`WINNER`).
        data_dir: the data folder (default: :func:`inflect.corpora.manifests.data_dir`).

    Returns:
        language -> accuracy; ``{}`` where the file is not there.

    Raises:
        ValueError: the file has no such system, or a value that is not a number (naming the
            file and line).
    """
    import pandas as pd

    from inflect.corpora.manifests import data_dir as resolve

    folder = resolve(data_dir)
    for base in (folder, folder.parent):
        path = base / RESULTS_FOLDER / f"{setting}.tsv"
        if path.is_file():
            break
    else:
        return {}
    table = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, encoding="utf-8")
    if system not in table.columns:
        raise ValueError(f"{path}: no column {system!r}; the systems are "
                         f"{', '.join(table.columns[1:])}")
    values = pd.to_numeric(table[system], errors="coerce")
    if values.isna().any():
        row = int(values.isna().idxmax())
        raise ValueError(f"{path}:{row + 2}: {system} {table[system][row]!r} is not a number")
    # the first column names the language (its header is "languages", or empty)
    return dict(zip(table[table.columns[0]], values.astype(float), strict=True))
