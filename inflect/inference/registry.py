"""The shipped default models: their registry (``registry.toml``) and where their files are.

The folder ``inflect/models/`` is inside the wheel. Its ``registry.toml`` (version 2) has

* one ``[model.NAME]`` table per model: ``members`` (checkpoint files written by
  :func:`inflect.nn.checkpoint.save_model`, or checkpoint folders, relative to the registry's folder;
  several members form an ensemble), ``setting`` (``"high"``, ``"medium"`` or ``"low"``),
  ``data`` (the training and selection data, in words), ``commands`` (how each member was
  trained), ``description``, and for members warm-started from another run, ``start_commands``
  (how that start was made, run first) and ``start_note``; a multilingual model serves many
  languages;
* one ``[language.NAME]`` table per language (its shared-task name), mapping each model that
  serves it to that model's exact-match accuracy on the language's dev file, in percent;
* optionally a ``[selection]`` table saying how the models of a language were chosen:
  ``criterion`` (``"dev"`` or ``"dev+heldout"``) and ``about`` (in words);
* optionally one ``[heldout.NAME]`` table per language whose models were chosen with a held-out
  slice of data beside dev (ship.py's ``--select-on dev+heldout``: the medium models of a
  language with a small dev set and a high setting, on pairs of its ``train-high`` that no
  medium model saw): ``words`` (the slice's size) and ``pooled``, mapping models of
  ``[language.NAME]`` to their exact-match accuracy on dev and the slice counted together, in
  percent.

The default model of a language: within each setting, the model with the best pooled accuracy
where ``[heldout.NAME]`` lists every model of that setting serving the language, else the most
accurate on the dev file; then, of those, the most accurate on the dev file (the high-setting
model, the medium one, the language's own): on its dev set the medium multilingual model beats
the high one for some high-setting languages, and a user asking for a form wants the better one
(``inflect models --all`` lists them all); ``setting=`` chooses a setting explicitly. A dev set
of 50-100 words is a noisy judge: the slice makes the choice between the medium models of such a
language hold better on unseen words. The accuracy shown is the dev figure, selected on the same
dev file, so the figure of a language served by several models is slightly optimistic. Version 1
registries (0.1's one table per language) are refused with a message saying so.

``$INFLECT_MODELS_DIR`` (or the ``models_dir`` argument) replaces the folder, e.g. for tests or a
site-wide set of models. This module imports only the standard library (and
:mod:`inflect.defaults`, :mod:`inflect.text.languages`); loading the weights is
:mod:`inflect.inference.predictor`'s job.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from inflect.defaults import SETTINGS

__all__ = [
    "MODELS_ENV",
    "REGISTRY_FILE",
    "NoDefaultModelError",
    "RegistryError",
    "ShippedModel",
    "best_model",
    "default_model",
    "list_models",
    "models_dir",
]

#: Environment variable naming a folder that replaces the shipped ``inflect/models``.
MODELS_ENV = "INFLECT_MODELS_DIR"
#: The registry's file name inside the models folder.
REGISTRY_FILE = "registry.toml"

_PACKAGE_DIR = Path(__file__).resolve().parent.parent / "models"
_KEYS = {"members", "setting", "data", "commands", "description", "method",
         "start_commands", "start_note"}
#: The criteria a ``[selection]`` table may name (ship.py's ``--select-on``).
CRITERIA = ("dev", "dev+heldout")


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
        dev_accuracy: exact-match accuracy on the language's dev file in percent, or None.
        setting: training setting (``"high"``, ...), or ``""``.
        data: the training and selection data, in words.
        commands: the commands that trained the members.
        description: free text.
        method: how the members were made, in words (``from scratch``, ``warm start``,
            ``ensemble of 2: from scratch; from scratch, hallucinated pairs to 5,000 a
            language``), or ``""`` (not recorded).
        name: the model's name in the registry.
        start_commands: where members were warm-started (``--init-from``) from another run:
            the commands that made that start, to run before :attr:`commands`.
        start_note: what the registry says about the start (e.g. that its command is not
            recorded), or ``""``.
        selection_accuracy: where the registry's ``[heldout.LANGUAGE]`` lists the model, its
            exact-match accuracy on dev and the held-out slice counted together, in percent
            (what it was chosen by among the models of its setting); else None.
        heldout_words: the words of that held-out slice (0 where there is none).
    """

    language: str
    members: tuple[Path, ...]
    dev_accuracy: float | None
    setting: str
    data: str
    commands: tuple[str, ...]
    description: str = ""
    method: str = ""
    name: str = ""
    start_commands: tuple[str, ...] = ()
    start_note: str = ""
    selection_accuracy: float | None = None
    heldout_words: int = 0

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


def _failing(where: str, header: str) -> Callable[[str], RegistryError]:
    """The error maker of one table: ``WHERE: [HEADER] what``."""
    return lambda what: RegistryError(f"{where}: [{header}] {what}")


def _known_keys(table: Any, keys: set[str], fail: Callable[[str], RegistryError]) -> None:
    """Raise ``fail(...)`` unless ``table`` is a table whose keys are among ``keys``."""
    if not isinstance(table, dict):
        raise fail("must be a table")
    unknown = sorted(set(table) - keys)
    if unknown:
        raise fail(f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(keys))}")


def _model_table(name: str, table: Any, folder: Path, where: str) -> ShippedModel:
    """One ``[model.NAME]`` table, validated."""

    fail = _failing(where, f"model.{name}")
    _known_keys(table, _KEYS, fail)
    members = table.get("members")
    if (
        not isinstance(members, list)
        or not members
        or not all(isinstance(m, str) and m for m in members)
    ):
        raise fail("members must be a non-empty list of file names")
    commands = table.get("commands", [])
    if isinstance(commands, str):
        commands = [commands]
    if not isinstance(commands, list) or not all(isinstance(c, str) for c in commands):
        raise fail("commands must be a list of strings")
    starts = table.get("start_commands", [])
    if not isinstance(starts, list) or not all(isinstance(c, str) for c in starts):
        raise fail("start_commands must be a list of strings")
    for key in ("setting", "data", "description", "method", "start_note"):
        if not isinstance(table.get(key, ""), str):
            raise fail(f"{key} must be a string")
    setting = table.get("setting", "")
    if setting and setting not in SETTINGS:
        raise fail(f"setting must be one of {', '.join(SETTINGS)}, got {setting!r}")
    return ShippedModel(
        language="",
        members=tuple((folder / m).resolve() for m in members),
        dev_accuracy=None,
        setting=setting,
        data=table.get("data", ""),
        commands=tuple(commands),
        description=table.get("description", ""),
        method=table.get("method", ""),
        name=name,
        start_commands=tuple(starts),
        start_note=table.get("start_note", ""),
    )


def _language_name(name: str, fail: Any) -> str:
    from inflect.text.languages import UnknownLanguageError, resolve

    try:
        spec = resolve(name)
    except UnknownLanguageError as exc:
        raise fail(str(exc)) from None
    if spec.name != name:
        raise fail(f"tables are named by shared-task name: use [{spec.name}]")
    return spec.name


def _accuracy(value: Any, fail: Any, what: str = "dev_accuracy") -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 100:
        raise fail(f"{what} must be a percentage, got {value!r}")
    return float(value)


def _selection_table(table: Any, where: str) -> None:
    """The ``[selection]`` table, validated (nothing in it changes what is read)."""
    fail = _failing(where, "selection")
    _known_keys(table, {"criterion", "about"}, fail)
    if table.get("criterion") not in CRITERIA:
        raise fail(f"criterion must be one of {', '.join(CRITERIA)}, got "
                   f"{table.get('criterion')!r}")
    if not isinstance(table.get("about", ""), str):
        raise fail("about must be a string")


def _heldout_table(lang: str, table: Any, served: dict[str, Any], where: str,
                   ) -> tuple[int, dict[str, float]]:
    """One ``[heldout.NAME]`` table, validated: the slice's words and model -> pooled accuracy
    (each a model of ``[language.NAME]``, ``served``)."""
    fail = _failing(where, f"heldout.{lang}")
    _known_keys(table, {"words", "pooled"}, fail)
    words = table.get("words")
    if isinstance(words, bool) or not isinstance(words, int) or words <= 0:
        raise fail(f"words must be a positive whole number, got {words!r}")
    pooled = table.get("pooled")
    if not isinstance(pooled, dict) or not pooled:
        raise fail("pooled must map model names to accuracies")
    if lang not in served:
        raise fail("has no [language] table of that name")
    out = {}
    for model_name, acc in pooled.items():
        if model_name not in served[lang]:
            raise fail(f"pooled: {model_name!r} is no model of [language.{lang}]; its models: "
                       f"{', '.join(served[lang])}")
        out[model_name] = _accuracy(acc, fail, "pooled accuracy")
    return words, out


def _read(folder: Path) -> dict[str, list[ShippedModel]]:
    """language -> every model serving it (with that language's dev accuracy)."""
    path = folder / REGISTRY_FILE
    if not path.is_file():
        given = "the shipped models' folder" if folder == _PACKAGE_DIR else (
            f"--models-dir / ${MODELS_ENV} {folder}"
        )
        what = "does not exist" if not folder.exists() else f"has no {REGISTRY_FILE}"
        raise RegistryError(
            f"{given} {what}: a models folder holds {REGISTRY_FILE} and the members' files"
            + ("; the installation is incomplete, reinstall sparse-inflect"
               if folder == _PACKAGE_DIR else "")
        )
    from inflect.text.encodings import decode_text

    text, why = decode_text(path.read_bytes())
    if text is None:
        raise RegistryError(f"{path}: not UTF-8 text, {why}")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RegistryError(f"{path}: not valid TOML ({exc})") from None
    version = doc.pop("version", 1)
    where = str(path)
    if version != 2:
        raise RegistryError(
            f"{path}: registry version {version!r}, this program reads 2 ([model.NAME] and "
            "[language.NAME] tables; version 1 was sparse-inflect 0.1's)"
        )
    unknown = sorted(set(doc) - {"model", "language", "selection", "heldout"})
    if unknown:
        raise RegistryError(
            f"{path}: unknown table(s) {', '.join(unknown)}; known: model, language, selection, "
            "heldout"
        )
    if "selection" in doc:
        _selection_table(doc["selection"], where)
    models = {
        n: _model_table(n, t, folder, where) for n, t in doc.get("model", {}).items()
    }
    languages = doc.get("language", {})
    heldout = doc.get("heldout", {})
    if not isinstance(heldout, dict):
        raise RegistryError(f"{where}: heldout must be tables [heldout.NAME]")
    pooled = {lang: _heldout_table(lang, t, languages, where) for lang, t in heldout.items()}
    served: dict[str, list[ShippedModel]] = {}
    for lang, table in sorted(languages.items()):

        def fail(what: str, lang: str = lang) -> RegistryError:
            return RegistryError(f"{where}: [language.{lang}] {what}")

        name = _language_name(lang, fail)
        if not isinstance(table, dict) or not table:
            raise fail("must map model names to dev accuracies")
        words, chosen_by = pooled.get(lang, (0, {}))
        for model_name, acc in table.items():
            if model_name not in models:
                raise fail(f"unknown model {model_name!r}; models: {', '.join(sorted(models))}")
            served.setdefault(name, []).append(
                replace(models[model_name], language=name, dev_accuracy=_accuracy(acc, fail),
                        selection_accuracy=chosen_by.get(model_name),
                        heldout_words=words if model_name in chosen_by else 0)
            )
    return served


def best_model(candidates: list[ShippedModel]) -> ShippedModel:
    """The default among models serving one language (see the module docstring): per setting,
    the best by :attr:`~ShippedModel.selection_accuracy` where every model of the setting has
    one, else by dev accuracy; then the most accurate on the dev file of those. On a tie the
    first in ``candidates``' order (the registry's); an unknown accuracy ranks last.

    Raises:
        ValueError: no candidates.
    """
    if not candidates:
        raise ValueError("best_model of no models")

    def dev(m: ShippedModel) -> float:
        return -1.0 if m.dev_accuracy is None else m.dev_accuracy

    winners = []
    for setting in dict.fromkeys(m.setting for m in candidates):
        group = [m for m in candidates if m.setting == setting]
        if all(m.selection_accuracy is not None for m in group):
            winners.append(max(group, key=lambda m: m.selection_accuracy))
        else:
            winners.append(max(group, key=dev))
    order = {id(m): k for k, m in enumerate(candidates)}
    return max(sorted(winners, key=lambda m: order[id(m)]), key=dev)


def list_models(
    models_dir_override: str | os.PathLike[str] | None = None, *, every: bool = False
) -> list[ShippedModel]:
    """The shipped models by language, sorted by language.

    Args:
        models_dir_override: the models folder (default: see :func:`models_dir`).
        every: every (language, model) pair, not only each language's default.

    Returns:
        The entries; an empty list when the registry lists none.

    Raises:
        RegistryError: the folder or its registry does not exist, the registry is not valid TOML
            or an entry is malformed (file, table, key).
    """
    served = _read(models_dir(models_dir_override))
    if every:
        return [m for lang in sorted(served) for m in served[lang]]
    return [best_model(served[lang]) for lang in sorted(served)]


def default_model(
    language: str,
    models_dir_override: str | os.PathLike[str] | None = None,
    setting: str | None = None,
) -> ShippedModel:
    """The shipped model of ``language`` (any name or code of the language).

    Args:
        language: the language.
        models_dir_override: the models folder (default: see :func:`models_dir`).
        setting: ``"high"``, ``"medium"`` or ``"low"``: the most accurate model of that setting
            serving the language; None: the language's default (see the module docstring).

    Raises:
        UnknownLanguageError: no language has this name (the message lists the closest).
        NoDefaultModelError: no shipped model for the language, or none of ``setting`` (the
            message lists the languages or the settings that have one).
        RegistryError: the folder or its registry does not exist, the registry is malformed,
            or a member file is missing.
    """
    from inflect.text.languages import resolve

    spec = resolve(language)
    served = _read(models_dir(models_dir_override))
    candidates = served.get(spec.name, [])
    if not candidates:
        shipped = ", ".join(sorted(served)) or "none yet"
        raise NoDefaultModelError(
            f"no shipped default model for {spec.name} (shipped: {shipped}); pass --model with "
            f"a checkpoint trained by `inflect train --lang {spec.name} ...`"
        )
    if setting is not None:
        of_setting = [m for m in candidates if m.setting == setting]
        if not of_setting:
            have = sorted({m.setting for m in candidates if m.setting}, key=SETTINGS.index)
            raise NoDefaultModelError(
                f"no shipped {setting}-setting model for {spec.name}; it has: "
                f"{', '.join(have) or 'models without a setting'} (--setting {' or '.join(have)})"
            )
        entry = best_model(of_setting)
    else:
        entry = best_model(candidates)
    if entry.missing:
        folder = models_dir(models_dir_override)
        advice = (
            "the installation is incomplete, reinstall sparse-inflect"
            if folder == _PACKAGE_DIR
            else f"copy the file(s) there or correct the members in {folder / REGISTRY_FILE}"
        )
        raise RegistryError(
            f"the {spec.name} model {entry.name!r} lacks {', '.join(map(str, entry.missing))}; "
            + advice
        )
    return entry
