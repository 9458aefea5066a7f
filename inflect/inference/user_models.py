"""Models of the user's own (checkpoints given by path, e.g. trained on their files), answering
beside the shipped ones: the languages a checkpoint knows, read from its metadata alone, and a
checkpoint as an entry of the models a service offers (``inflect serve --model NAME=PATH``).

Reading a checkpoint's languages makes them known to
:func:`inflect.text.languages.resolve` (:func:`inflect.text.languages.remember`), so that every
command takes a model's language by name however new the language is.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from inflect.inference.registry import ShippedModel
from inflect.nn.checkpoint import MODEL_FILE, checkpoint_members, load_metadata, stored_languages

__all__ = [
    "cell_tables",
    "checkpoint_languages",
    "checkpoint_metadata",
    "spec_from",
    "user_model",
    "user_model_language",
]


def checkpoint_metadata(
    paths: Sequence[str | os.PathLike[str]],
) -> list[tuple[Path, dict[str, Any]]]:
    """``(file, metadata)`` of each member of a model or an ensemble (``--model`` paths), no
    weights read.

    Raises:
        FileNotFoundError, ValueError: as :func:`~inflect.nn.checkpoint.checkpoint_members`.
        CheckpointError: a member that is not a readable checkpoint.
    """
    out = []
    for member in checkpoint_members(paths):
        path = member / MODEL_FILE if member.is_dir() else member
        out.append((path, load_metadata(path)))
    return out


def cell_tables(found: Iterable[tuple[Any, dict[str, Any]]]) -> list[Any]:
    """The paradigm cells that checkpoints carry (a model trained on a user's files: the tag
    bundles of its training data, :func:`inflect.corpora.cells.cells_record`), as
    :class:`~inflect.corpora.cells.CellTable` s, from ``(path, metadata)`` pairs (of
    :func:`checkpoint_metadata`, or of loaded models).

    Raises:
        CellsError: a malformed record (naming the checkpoint).
    """
    from inflect.corpora.cells import CellTable

    return [
        CellTable.from_record(meta["cells"], path or "checkpoint")
        for path, meta in found
        if meta.get("cells")
    ]


def checkpoint_languages(paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    """The languages of a model or an ensemble (``--model`` paths, see
    :func:`inflect.nn.checkpoint.checkpoint_members`) that every member knows, in the first
    member's order, read from the metadata alone (no weights); each is made known to
    :func:`inflect.text.languages.resolve` as loading the checkpoint does.

    Raises:
        FileNotFoundError, ValueError: as :func:`~inflect.nn.checkpoint.checkpoint_members`.
        CheckpointError: a member that is not a readable checkpoint, or a malformed spec.
    """
    known = [list(stored_languages(path, meta)) for path, meta in checkpoint_metadata(paths)]
    return [name for name in known[0] if all(name in other for other in known[1:])]


def user_model_language(name: str | None, path: str) -> list[str]:
    """The languages ``inflect serve --model NAME=PATH`` serves with the checkpoint ``path``:
    ``NAME`` (any name of one of its languages), or every language it knows where ``NAME`` is
    None.

    Raises:
        ValueError: a checkpoint that records no language, or ``NAME`` not among its languages.
        FileNotFoundError, CheckpointError: as :func:`checkpoint_languages`.
    """
    from inflect.text.languages import UnknownLanguageError, resolve

    languages = checkpoint_languages([path])
    if not languages:
        raise ValueError(f"{path}: the model records no language (a translation model?)")
    if name is None:
        return languages
    try:
        wanted = resolve(name).name
    except UnknownLanguageError:
        wanted = name
    if wanted not in languages:
        raise ValueError(
            f"{path} is a model of {', '.join(languages)}, not of {name!r}; give "
            f"--model {languages[0]}={path}"
        )
    return [wanted]


def user_model(language: str, path: str) -> ShippedModel:
    """The checkpoint ``path`` as the entry of a model serving ``language`` (shared-task or
    spec name), named by its path, with what its metadata says: the dev accuracy of its
    selected epoch, its data and the commands that trained it.

    Raises:
        FileNotFoundError, ValueError, CheckpointError: as :func:`checkpoint_languages`.
    """
    found = checkpoint_metadata([path])
    training = found[0][1].get("training") or {}
    data = training.get("data") or {}
    files = [r.get("file", "") for r in data.get("train_files", [])]
    accuracy = training.get("best_accuracy")
    return ShippedModel(
        language=language,
        members=tuple(p.resolve() for p, _ in found),
        dev_accuracy=float(accuracy)
        if isinstance(accuracy, int | float) and accuracy >= 0
        else None,
        setting=str(data.get("setting", "")),
        data=", ".join(files) if files else str(data.get("setting", "")),
        commands=tuple(training.get("commands", ())),
        description=f"your model ({path})",
        method="",
        name=str(path),
    )


def spec_from(
    sources: Sequence[str | os.PathLike[str]], name: str, fmt: str = "auto"
) -> tuple[Any, tuple[str, ...]]:
    """The spec of language ``name`` from where ``inflect lang add NAME --from ...`` points:
    a spec file (``.toml``, any file name), a run folder or checkpoint (the spec stored in it:
    a model trained on the user's files carries its language's), or data files (the spec made
    from their lemmas and forms, :func:`inflect.corpora.user_langs.derive_spec`).

    Returns:
        ``(spec, notes)``: the :class:`~inflect.text.languages.LanguageSpec` named ``name``
        (:func:`~inflect.corpora.user_langs.new_language_name`) and the lines that say where it
        came from (the TOML file's comments).

    Raises:
        LanguageSpecError: a malformed spec, or a checkpoint without the language.
        CheckpointError, DataFormatError, OSError: a source that cannot be read.
    """
    import dataclasses

    from inflect.corpora.user_langs import derive_spec, new_language_name
    from inflect.nn.checkpoint import STATE_FILE
    from inflect.text.languages import LanguageSpecError, load_spec

    key = new_language_name(name)
    first = Path(sources[0])
    if len(sources) == 1 and first.suffix == ".toml":
        spec = load_spec(first, named=False)
        return dataclasses.replace(spec, name=key), (f"Copied from {first}.",)
    if len(sources) == 1 and (first.is_dir() or first.suffix == ".safetensors"):
        path = first
        if first.is_dir():
            path = first / MODEL_FILE if (first / MODEL_FILE).is_file() else first / STATE_FILE
        specs = stored_languages(path, load_metadata(path))
        if not specs:
            raise LanguageSpecError(f"{path}: the checkpoint stores no language spec")
        chosen = specs.get(key) or (next(iter(specs.values())) if len(specs) == 1 else None)
        if chosen is None:
            raise LanguageSpecError(f"{path} stores the specs of {', '.join(specs)}, not {key}")
        return dataclasses.replace(chosen, name=key), (f"Taken from the checkpoint {path}.",)
    from inflect.text.reading import parse_file

    words = [
        w
        for source in sources
        for ex in parse_file(source, key, fmt).examples  # type: ignore[arg-type]
        for w in (ex.lemma, ex.form)
        if w
    ]
    derived = derive_spec(key, words)
    files = ", ".join(Path(s).name for s in sources)
    return derived.spec, (f"Made from {files}.", *derived.notes)
