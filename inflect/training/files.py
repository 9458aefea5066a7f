"""The data of a run trained on a user's own files (``inflect train --train FILE --dev FILE``),
of any language: one the package ships, one of the user's folder, or a new one, whose spec is
then made from the files (:func:`inflect.corpora.user_langs.derive_spec`) and stored in the
checkpoint.

The files are read in any layout the readers detect (2018 ``lemma<TAB>form<TAB>tags``, 2023
``lemma<TAB>tags<TAB>form``; :mod:`inflect.text.layouts`). What a checkpoint keeps of them: each
file's name, SHA-256 and number of examples in the data description (a resumed run must be given
the same bytes), their paths (where ``--resume`` reads them again), and the paradigm cells of the
training data (:func:`inflect.corpora.cells.cells_record`), so that ``inflect paradigm`` answers
for the model's language as for a shipped one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inflect.text.records import Example, Format
from inflect.training.items import TrainingData, items_from_examples

__all__ = ["FileData", "file_language", "load_files", "saved_files"]


@dataclass
class FileData:
    """What :func:`load_files` read.

    Attributes:
        data: the :class:`~inflect.training.items.TrainingData` (its ``cells`` and ``sources``
            set).
        derived: the spec made from the files, where the language was new (None otherwise).
        language: the language's name (the spec's).
    """

    data: TrainingData
    derived: Any
    language: str


def file_language(train_files: Sequence[str | os.PathLike[str]], language: str | None) -> str:
    """The language of a run on files: ``language`` as given, else the one the first training
    file's name gives (``german-train-high``, ``de.tsv``: see
    :func:`inflect.text.reading.language_of_file`).

    Raises:
        ValueError: none given and the file name gives no known language (the message asks
            for ``--lang``).
    """
    if language:
        if "," in language:
            raise ValueError(
                f"--lang {language!r}: a run on --train files is of one language; give one name"
            )
        return language.strip()
    from inflect.text.reading import language_of_file

    try:
        return language_of_file(train_files[0])
    except ValueError:
        raise ValueError(
            f"give the language of {train_files[0]} with --lang NAME (a language the package "
            "or your folder knows, or a new name: its spec is then made from the files)"
        ) from None


def _read(
    paths: Sequence[str | os.PathLike[str]], label: str, fmt: Format
) -> tuple[list[Example], list[dict[str, Any]]]:
    """The examples of ``paths`` (forms required) and one record per file."""
    from inflect.io.atomic import sha256_of
    from inflect.text.reading import parse_file

    examples: list[Example] = []
    records = []
    for path in paths:
        parsed = parse_file(path, label, fmt)
        if parsed.stats.fmt == "covered":
            raise ValueError(
                f"{path}: the file has no forms (2 fields: lemma, tags); training "
                "and dev files need lemma<TAB>form<TAB>tags (2018) or "
                "lemma<TAB>tags<TAB>form (2023)"
            )
        if not parsed.examples:
            raise ValueError(f"{path}: no example in the file")
        examples += parsed.examples
        records.append(
            {
                "file": Path(path).name,
                "sha256": sha256_of(path),
                "examples": len(parsed.examples),
                "layout": parsed.stats.fmt,
            }
        )
    return examples, records


def load_files(
    train_files: Sequence[str | os.PathLike[str]],
    dev_files: Sequence[str | os.PathLike[str]],
    language: str | None = None,
    fmt: Format = "auto",
    spec: Any = None,
) -> FileData:
    """Read a user's training and dev files of one language.

    Args:
        train_files, dev_files: the files (at least one each).
        language: the language's name (see :func:`file_language`).
        fmt: their layout (``"auto"``: each file's, detected).
        spec: the :class:`~inflect.text.languages.LanguageSpec` to use (a resumed run's, stored
            in its state), or None: the known language's, else one made from the files.

    Returns:
        The :class:`FileData`.

    Raises:
        ValueError: no file of a kind, a file without forms or examples, a bad new name
            (:class:`~inflect.text.languages.LanguageSpecError`), a name several languages
            share (:class:`~inflect.text.languages.AmbiguousLanguageError`).
        DataFormatError: a malformed line (file, line and value); OSError: a file unreadable.
    """
    from inflect.corpora.cells import cells_record
    from inflect.text.languages import AmbiguousLanguageError, UnknownLanguageError, resolve

    if not train_files or not dev_files:
        raise ValueError(
            "give both --train FILE and --dev FILE (the model is selected on "
            "the dev file's accuracy)"
        )
    name = file_language(train_files, language)
    train, train_records = _read(train_files, name, fmt)
    dev, dev_records = _read(dev_files, name, fmt)
    derived = None
    if spec is None:
        try:
            spec = resolve(name)
        except AmbiguousLanguageError:
            raise
        except UnknownLanguageError:
            from inflect.corpora.user_langs import derive_spec

            words = [w for ex in train + dev for w in (ex.lemma, ex.form) if w is not None]
            derived = derive_spec(name, words)
            spec = derived.spec
    description = {
        "languages": [spec.name],
        "train_files": train_records,
        "dev_files": dev_records,
        "train_examples": len(train),
        "dev_examples": len(dev),
    }
    source = "the training data (" + ", ".join(r["file"] for r in train_records) + ")"
    data = TrainingData(
        train=items_from_examples(train, {name: spec}),
        dev=items_from_examples(dev, {name: spec}),
        languages=[spec],
        description=description,
        cells=cells_record(spec.name, train, source),
        sources=[
            {"role": role, "path": str(Path(p).resolve()), "sha256": r["sha256"]}
            for role, paths, records in (
                ("train", train_files, train_records),
                ("dev", dev_files, dev_records),
            )
            for p, r in zip(paths, records, strict=True)
        ],
    )
    return FileData(data, derived, spec.name)


def saved_files(meta: dict[str, Any]) -> dict[str, Any] | None:
    """What a file-trained run's trainer state (its metadata ``meta``) needs to be resumed:
    ``{"train": [paths], "dev": [paths], "lang": name, "spec": LanguageSpec}``; None for a run
    on the shared task's data."""
    data = meta.get("data") or {}
    if "train_files" not in data:
        return None
    from inflect.text.languages import LanguageSpec

    sources = meta.get("sources") or []
    [spec] = [LanguageSpec.from_dict(d) for d in meta.get("languages", [])]
    return {
        "train": [s["path"] for s in sources if s["role"] == "train"],
        "dev": [s["path"] for s in sources if s["role"] == "dev"],
        "lang": spec.name,
        "spec": spec,
    }
