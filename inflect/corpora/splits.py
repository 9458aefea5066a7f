"""One split of CoNLL–SIGMORPHON 2018 task 1 for a language, found in the data folder and read.

The file is found by :func:`inflect.corpora.manifests.locate` (any alias of the language, the
folders of ``inflect data fetch``) and read by :func:`inflect.text.reading.read_examples`.
"""

from __future__ import annotations

import os

from inflect.corpora.manifests import locate
from inflect.text.reading import language_from_filename, read_examples
from inflect.text.records import Example

__all__ = ["load_split"]


def load_split(
    language: str,
    split: str,
    data_dir: str | os.PathLike[str] | None = None,
) -> list[Example]:
    """Read one split of CoNLL–SIGMORPHON 2018 task 1 for a language.

    Args:
        language: the shared-task name or any alias known to :mod:`inflect.text.languages`.
        split: ``"train-high"``, ``"train-medium"``, ``"train-low"``, ``"dev"`` or
            ``"covered-test"``.
        data_dir: the data folder (default: :func:`inflect.corpora.manifests.data_dir`).

    Returns:
        The examples, ``language`` set to the shared-task name (``"german"`` for ``"de"``).

    Raises:
        ValueError: an unknown split.
        UnknownLanguageError: (a ValueError) an unknown language.
        FileNotFoundError: the file is absent (the message says how to get it).
        DataFormatError: a malformed line.
    """
    path = locate(language, split, data_dir)
    return read_examples(path, language_from_filename(path))
