"""UniMorph on demand: fetched, verified and indexed per language; consulted once installed.

UniMorph (https://unimorph.github.io) publishes one repository per language,
``unimorph/<iso639-3>``, whose inflection file (``eng``; ``fin.1`` and ``fin.2``) is in the 2018
layout ``lemma<TAB>form<TAB>tags``. The files this version downloads are pinned in the manifest
``datasets/lexicons/unimorph.toml`` (:data:`PINS`, read by :mod:`inflect.corpora.manifests`): each
at a commit, verified by its git blob id (SHA-1 of ``blob <size>\\0`` + the bytes, as the
repository's tree lists it).

- :func:`fetch_unimorph`: download a language's files into ``<data folder>/unimorph/<iso>/``
  (the data folder of :func:`inflect.corpora.manifests.data_dir`: ``--data-dir``, else
  ``$INFLECT_DATA_DIR``, else the user cache folder), each written to a temporary name, verified,
  renamed (:func:`inflect.corpora.manifests.fetch`); then index it (:func:`install`).
- :func:`add_unimorph`: install a file copied by hand (offline): verified against the pin where
  its blob id is the pinned one, else installed as an unpinned file named by its blob id.
- :func:`remove_unimorph`: the counterpart of fetch and add: a language's files and index go.
- :func:`install`: read every file of a language's folder with the data reader and write its
  index ``<data folder>/unimorph/<language>.parquet`` (:mod:`inflect.lexicon.indexed`), so a
  cold lookup reads a few kilobytes. A line the reader refuses is counted and the first one
  named (``inflect lexicon list``), not used.
- :class:`UniMorphLexicon`: the installed languages, one layer of
  :class:`~inflect.lexicon.Lexicons`; each form's source names the file's commit, file and line
  (``UniMorph eng 66e0e9e (eng:1234)``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inflect.lexicon.core import Attestation, LexiconError, lemma_key
from inflect.lexicon.indexed import IndexedStore, read_meta, write_index
from inflect.text.records import TagBundle

__all__ = [
    "PINS",
    "SOURCE",
    "InstalledLanguage",
    "UniMorphLexicon",
    "add_unimorph",
    "fetch_unimorph",
    "install",
    "installed",
    "pins",
    "remove_unimorph",
    "unimorph_dir",
]

#: How answers name UniMorph.
SOURCE = "UniMorph"
#: The manifest of the pinned files, relative to the shipped ``datasets/`` folder.
PINS = "lexicons/unimorph.toml"


def pins():
    """The manifest of UniMorph files this version fetches (an
    :class:`inflect.corpora.manifests.Manifest`).

    Raises:
        ValueError: a malformed manifest (a broken installation).
    """
    from inflect._resources import data_path
    from inflect.corpora.manifests import load_manifest

    return load_manifest(data_path("datasets") / PINS)


def unimorph_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """``<data folder>/unimorph`` (:func:`inflect.corpora.manifests.data_dir` of ``data_dir``)."""
    from inflect.corpora.cache import data_dir as resolve

    return resolve(data_dir) / "unimorph"


def _resolve(language: str):
    from inflect.text.languages import resolve

    return resolve(language)


@dataclass(frozen=True)
class InstalledLanguage:
    """One installed language (what ``inflect lexicon list`` shows).

    Attributes:
        language: the shared-task name.
        iso: its ISO 639-3 code (the repository's name).
        index: the index file.
        files: per file, ``{"name", "commit", "git_blob", "forms", "skipped", "first_skipped",
            "size"}`` (commit None for a file that is not the pinned one).
        forms: the (lemma, tags, form) rows of the index.
    """

    language: str
    iso: str
    index: Path
    files: tuple[dict[str, Any], ...]
    forms: int

    @property
    def size(self) -> int:
        """Bytes of the installed files (the index not counted)."""
        return sum(int(f["size"]) for f in self.files)

    @property
    def commits(self) -> str:
        """The files' commits (short), or ``unpinned`` for a file added that is not pinned."""
        return ", ".join(dict.fromkeys(f["commit"][:7] if f["commit"] else "unpinned"
                                       for f in self.files))


def _label(iso: str, file: dict[str, Any]) -> str:
    """The start of a form's source: ``UniMorph eng 66e0e9e (eng`` (``:LINE)`` follows)."""
    version = file["commit"][:7] if file["commit"] else f"unpinned blob {file['git_blob'][:7]}"
    return f"{SOURCE} {iso} {version} ({file['name']}"


def install(
    language: str,
    data_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[str], None] | None = None,
    manifest: Any = None,
) -> InstalledLanguage:
    """(Re)write the index of ``language`` from the files in ``<data folder>/unimorph/<iso>/``.

    Each file is read with the data reader (:func:`inflect.text.reading.parse_file`, 2018
    layout); a line it refuses is counted and the first one kept (``first_skipped``). A file
    whose blob id ``manifest`` (default :func:`pins`) pins is named by its commit.

    Raises:
        LexiconError: no file, or no readable line in any.
        UnknownLanguageError: no language has this name.
        OutputError: the index cannot be written.
    """
    from inflect.io.atomic import git_blob_of
    from inflect.text.reading import parse_file

    spec = _resolve(language)
    folder = unimorph_dir(data_dir) / spec.iso639_3
    paths = sorted(p for p in folder.glob("*") if p.is_file() and not p.name.startswith("."))
    if not paths:
        raise LexiconError(f"{folder}: no UniMorph file of {spec.name} to index; fetch it with "
                           f"`inflect lexicon fetch {spec.name}`")
    manifest = manifest if manifest is not None else pins()
    pinned = {f.git_blob: f.commit for f in manifest.files if f.language == spec.name}
    files, rows = [], []
    for number, path in enumerate(paths):
        if progress is not None:
            progress(f"indexing {path}")
        parsed = parse_file(path, spec.name, "2018", collect_errors=True)
        blob = git_blob_of(path)
        files.append({"name": path.name, "commit": pinned.get(blob), "git_blob": blob,
                      "forms": len(parsed.examples), "skipped": len(parsed.errors),
                      "first_skipped": str(parsed.errors[0]) if parsed.errors else None,
                      "size": path.stat().st_size})
        rows += [(lemma_key(spec.name, e.lemma), e.tags.text, lemma_key(spec.name, e.form or ""),
                  number, e.line or 0) for e in parsed.examples]
    if not rows:
        raise LexiconError(f"{folder}: no line in the layout lemma<TAB>form<TAB>tags "
                           f"({files[0]['first_skipped']})")
    index = unimorph_dir(data_dir) / f"{spec.name}.parquet"
    meta = {"language": spec.name, "iso": spec.iso639_3, "files": files}
    count = write_index(index, rows, meta)
    return InstalledLanguage(spec.name, spec.iso639_3, index, tuple(files), count)


def installed(data_dir: str | os.PathLike[str] | None = None) -> list[InstalledLanguage]:
    """The installed languages, sorted by name (an index that cannot be read is skipped here and
    named by the lookup that needs it)."""
    found = []
    for index in sorted(unimorph_dir(data_dir).glob("*.parquet")):
        try:
            meta = read_meta(index)
        except LexiconError:
            continue
        found.append(InstalledLanguage(meta["language"], meta["iso"], index,
                                       tuple(meta["files"]), int(meta["rows"])))
    return found


def fetch_unimorph(
    languages: Iterable[str],
    data_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[Any], None] | None = None,
    timeout: float = 30.0,
    manifest: Any = None,
) -> list[InstalledLanguage]:
    """Download, verify and index the pinned UniMorph files of ``languages`` (any names or
    codes); a file already there with its blob id is not downloaded again. ``manifest``:
    another manifest of the same form than :func:`pins` (tests, a mirror).

    Raises:
        ValueError: a language without a pinned UniMorph file (the message lists them).
        FetchError: offline or an HTTP error (the message names the address and how to add a
            file copied by hand: ``inflect lexicon add FILE --lang L``); ChecksumError: a
            download whose blob id is not the pinned one (nothing installed; an interrupted
            download likewise).
        OutputError: the data folder cannot be written.
    """
    from inflect.corpora.manifests import fetch

    manifest = manifest if manifest is not None else pins()
    names = []
    for language in languages:
        try:
            names.append(_resolve(language).name)
        except ValueError:
            names.append(language)  # the manifest's error names it, with the closest
    try:
        manifest.select(names)
    except ValueError as exc:
        raise ValueError(f"{exc}; UniMorph is pinned for: {', '.join(manifest.languages)}") \
            from None
    fetch(manifest, names, data_dir, progress=progress, timeout=timeout)
    return [install(name, data_dir, manifest=manifest) for name in dict.fromkeys(names)]


def add_unimorph(
    path: str | os.PathLike[str],
    language: str,
    data_dir: str | os.PathLike[str] | None = None,
    manifest: Any = None,
) -> tuple[InstalledLanguage, bool]:
    """Install a UniMorph file copied by hand (offline) for ``language`` and index it.

    Returns:
        The language installed, and whether the file is the pinned one (its git blob id is the
        one ``manifest``, default :func:`pins`, gives); another file is installed all the same,
        its answers named by its blob id.

    Raises:
        LexiconError: the file has no line in the 2018 layout (nothing is installed).
        UnknownLanguageError: no language has this name.
        OSError: the file cannot be read, or the data folder written.
    """
    from inflect.io.atomic import atomic_write, git_blob_of

    spec = _resolve(language)
    blob = git_blob_of(path)
    manifest = manifest if manifest is not None else pins()
    entry = next((f for f in manifest.files if f.language == spec.name and f.git_blob == blob),
                 None)
    folder = unimorph_dir(data_dir) / spec.iso639_3
    target = folder / (entry.name if entry is not None else f"{Path(path).name}.{blob[:7]}")
    created = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)

    def copy(temp: Path) -> None:
        with open(path, "rb") as source, open(temp, "wb") as out:
            shutil.copyfileobj(source, out, 1 << 20)

    existed = target.exists()
    atomic_write(target, copy)
    try:
        done = install(spec.name, data_dir, manifest=manifest)
        added = next(f for f in done.files if f["name"] == target.name)
        if not added["forms"]:  # the language's other files were readable, this one is not
            target.unlink()
            install(spec.name, data_dir, manifest=manifest)
            raise LexiconError(f"{path}: no line in the layout lemma<TAB>form<TAB>tags "
                               f"({added['first_skipped']}); nothing was installed")
        return done, entry is not None
    except LexiconError:
        if not existed and target.exists():
            target.unlink()
            if created:
                folder.rmdir()
        raise


def remove_unimorph(
    languages: Iterable[str], data_dir: str | os.PathLike[str] | None = None
) -> list[InstalledLanguage]:
    """Uninstall ``languages`` (any names or codes): each one's index
    ``<data folder>/unimorph/<language>.parquet`` goes first (from then on it is not consulted),
    then its files ``<data folder>/unimorph/<iso>/``. Every name is checked before anything is
    removed.

    Returns:
        The languages removed, as they were installed (their forms, files and sizes).

    Raises:
        UnknownLanguageError: no language has one of the names.
        LexiconError: a language that is not installed (the message lists those that are).
        OSError: a file cannot be removed.
    """
    here = {i.language: i for i in installed(data_dir)}
    chosen = list(dict.fromkeys(_resolve(name).name for name in languages))
    absent = [name for name in chosen if name not in here]
    if absent:
        have = ", ".join(here) if here else "none"
        raise LexiconError(f"UniMorph {', '.join(absent)}: not installed in "
                           f"{unimorph_dir(data_dir)} (installed: {have}); nothing was removed")
    for name in chosen:
        language = here[name]
        language.index.unlink()
        files = unimorph_dir(data_dir) / language.iso
        if files.is_dir():
            shutil.rmtree(files)
    return [here[name] for name in chosen]


class UniMorphLexicon:
    """The installed UniMorph languages (:func:`installed`), one layer of
    :class:`~inflect.lexicon.Lexicons`; a language's index is opened at its first lookup.

    Args:
        data_dir: the data folder (default :func:`inflect.corpora.manifests.data_dir`).

    Attributes:
        name: ``UniMorph``.
    """

    name = SOURCE
    #: The shared-task data were sampled from UniMorph: the two count as one source where
    #: :class:`~inflect.lexicon.Lexicons` ranks forms by how many sources attest them.
    family = "UniMorph"

    def __init__(self, data_dir: str | os.PathLike[str] | None = None) -> None:
        self.folder = unimorph_dir(data_dir)
        self._stores: dict[str, IndexedStore] = {}

    def languages(self) -> frozenset[str]:
        """The installed languages (by their index files; nothing is read)."""
        return frozenset(p.stem for p in self.folder.glob("*.parquet"))

    def _store(self, language: str) -> IndexedStore | None:
        """The language's index, opened once; None while it is not installed (looked for again
        at the next lookup: a running service sees a language fetched later)."""
        if self._stores.get(language) is None:
            index = self.folder / f"{language}.parquet"
            if not index.is_file():
                return None
            meta = read_meta(index)
            self._stores[language] = IndexedStore(
                index, [_label(meta["iso"], f) for f in meta["files"]])
        return self._stores[language]

    def lookup(self, language: str, lemma: str, tags: TagBundle) -> tuple[Attestation, ...]:
        """The forms UniMorph gives the input, in file order (see
        :class:`~inflect.lexicon.Lexicon`); empty for a language not installed."""
        store = self._store(language)
        return store.lookup(lemma, tags) if store is not None else ()
