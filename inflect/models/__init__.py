"""The shipped default models: their registry (``registry.toml``) and where their files are.

The folder ``inflect/models/`` is inside the wheel. Its ``registry.toml`` has one table per
language, named by the shared-task name (``[german]``), with

* ``members``: the checkpoint files (``.safetensors`` written by :func:`inflect.checkpoint.save_model`,
  or checkpoint folders), relative to the registry's folder; several members form an ensemble;
* ``dev_accuracy``: exact-match accuracy on the shared-task dev file, in percent;
* ``setting``: the training setting (``"high"``, ``"medium"`` or ``"low"``);
* ``data``: the training and selection data, in words;
* ``commands``: the command that trained each member (or ``command``, one string).

``$INFLECT_MODELS_DIR`` (or the ``models_dir`` argument) replaces the folder, e.g. for tests or a
site-wide set of models. This module imports only the standard library (and
:mod:`inflect.languages`); loading the weights is :mod:`inflect.predict`'s job.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "MODELS_ENV",
    "REGISTRY_FILE",
    "NoDefaultModelError",
    "RegistryError",
    "ShippedModel",
    "default_model",
    "list_models",
    "models_dir",
]

#: Environment variable naming a folder that replaces the shipped ``inflect/models``.
MODELS_ENV = "INFLECT_MODELS_DIR"
#: The registry's file name inside the models folder.
REGISTRY_FILE = "registry.toml"

_PACKAGE_DIR = Path(__file__).resolve().parent
_KEYS = {"members", "dev_accuracy", "setting", "data", "commands", "command", "description"}


class RegistryError(ValueError):
    """The registry is malformed; the message names the file, the table and the key."""


class NoDefaultModelError(LookupError):
    """No shipped model for a language; the message lists the languages that have one."""


@dataclass(frozen=True)
class ShippedModel:
    """One registry entry.

    Attributes:
        language: shared-task name of the language (``"german"``).
        members: absolute paths of the member checkpoints (one: a single model).
        dev_accuracy: exact-match dev accuracy in percent, or None if not given.
        setting: training setting (``"high"``, ...), or ``""``.
        data: the training and selection data, in words.
        commands: the commands that trained the members.
        description: free text.
    """

    language: str
    members: tuple[Path, ...]
    dev_accuracy: float | None
    setting: str
    data: str
    commands: tuple[str, ...]
    description: str = ""

    @property
    def size_bytes(self) -> int:
        """Total size of the member files on disk (0 for a missing file)."""
        total = 0
        for path in self.members:
            if path.is_dir():
                total += sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
            elif path.is_file():
                total += path.stat().st_size
        return total

    @property
    def missing(self) -> tuple[Path, ...]:
        """Member files that do not exist (an incomplete installation)."""
        return tuple(p for p in self.members if not p.exists())


def models_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The models folder: ``override``, else ``$INFLECT_MODELS_DIR``, else the shipped one."""
    if override is not None:
        return Path(override)
    env = os.environ.get(MODELS_ENV)
    if env:
        return Path(env)
    return _PACKAGE_DIR


def _entry(name: str, table: Any, folder: Path, where: str) -> ShippedModel:
    def fail(what: str) -> RegistryError:
        return RegistryError(f"{where}: [{name}] {what}")

    if not isinstance(table, dict):
        raise fail("must be a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise fail(f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_KEYS))}")
    from inflect.languages import UnknownLanguageError, resolve

    try:
        spec = resolve(name)
    except UnknownLanguageError as exc:
        raise fail(str(exc)) from None
    if spec.name != name:
        raise fail(f"tables are named by shared-task name: use [{spec.name}]")
    members = table.get("members")
    if (
        not isinstance(members, list)
        or not members
        or not all(isinstance(m, str) and m for m in members)
    ):
        raise fail("members must be a non-empty list of file names")
    accuracy = table.get("dev_accuracy")
    if accuracy is not None and (
        isinstance(accuracy, bool) or not isinstance(accuracy, int | float)
        or not 0 <= accuracy <= 100
    ):
        raise fail(f"dev_accuracy must be a percentage, got {accuracy!r}")
    commands = table.get("commands", table.get("command", []))
    if isinstance(commands, str):
        commands = [commands]
    if not isinstance(commands, list) or not all(isinstance(c, str) for c in commands):
        raise fail("commands must be a list of strings")
    for key in ("setting", "data", "description"):
        if not isinstance(table.get(key, ""), str):
            raise fail(f"{key} must be a string")
    return ShippedModel(
        language=name,
        members=tuple((folder / m).resolve() for m in members),
        dev_accuracy=None if accuracy is None else float(accuracy),
        setting=table.get("setting", ""),
        data=table.get("data", ""),
        commands=tuple(commands),
        description=table.get("description", ""),
    )


def list_models(models_dir_override: str | os.PathLike[str] | None = None) -> list[ShippedModel]:
    """Every model of the registry, sorted by language.

    Args:
        models_dir_override: the models folder (default: see :func:`models_dir`).

    Returns:
        The entries; an empty list when the registry lists none (or the folder has no registry).

    Raises:
        RegistryError: the registry is not valid TOML or an entry is malformed (file, table, key).
    """
    folder = models_dir(models_dir_override)
    path = folder / REGISTRY_FILE
    if not path.is_file():
        return []
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RegistryError(f"{path}: not valid TOML ({exc})") from None
    version = doc.pop("version", 1)
    if version != 1:
        raise RegistryError(f"{path}: registry version {version!r}, this program reads 1")
    return [_entry(name, doc[name], folder, str(path)) for name in sorted(doc)]


def default_model(
    language: str, models_dir_override: str | os.PathLike[str] | None = None
) -> ShippedModel:
    """The shipped model of ``language`` (any name or code of the language).

    Raises:
        UnknownLanguageError: no language has this name (the message lists the closest).
        NoDefaultModelError: no shipped model for the language (the message lists those shipped).
        RegistryError: the registry is malformed, or a member file is missing.
    """
    from inflect.languages import resolve

    spec = resolve(language)
    models = list_models(models_dir_override)
    for entry in models:
        if entry.language == spec.name:
            if entry.missing:
                raise RegistryError(
                    f"the shipped {spec.name} model lacks {', '.join(map(str, entry.missing))}; "
                    "the installation is incomplete, reinstall sparse-inflect"
                )
            return entry
    shipped = ", ".join(m.language for m in models) or "none yet"
    raise NoDefaultModelError(
        f"no shipped default model for {spec.name} (shipped: {shipped}); pass --model with a "
        f"checkpoint trained by `inflect train --lang {spec.name} ...`"
    )
