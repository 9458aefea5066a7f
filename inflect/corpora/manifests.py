"""Dataset manifests (``datasets/*.toml``): where the data live, and getting them there.

A manifest lists every file of a dataset with its SHA-256, its size and where it comes from
upstream. :func:`data_dir` says where the files are kept (``--data-dir`` > ``$INFLECT_DATA_DIR`` >
the platform's user cache folder), :func:`locate` finds one CoNLL–SIGMORPHON 2018 file there and
:func:`fetch` downloads, verifies and installs files atomically (a file under its final name has
always passed its checksum).

Standard library only (plus ``platformdirs`` and :mod:`inflect.text.languages` for aliases).
"""

from __future__ import annotations

import difflib
import gzip
import hashlib
import http.client
import os
import tomllib
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from inflect._resources import data_path
from inflect.corpora.cache import APP_NAME, ENV_DATA_DIR, data_dir  # noqa: F401 (re-exported)
from inflect.defaults import SETTINGS
from inflect.io.atomic import atomic_write, git_blob_of, sha256_of
from inflect.io.outputs import check_output_folder, make_folders, remove_empty_folders, reporting
from inflect.text.languages import LanguageSpec, UnknownLanguageError, resolve

CONLL2018 = "conll2018-task1"
SPLITS: tuple[str, ...] = ("train-high", "train-medium", "train-low", "dev", "covered-test")

_HOW_TO_POINT = (
    "download it with `inflect data fetch {dataset}`, or, if you have a local copy, point "
    "--data-dir or the environment variable INFLECT_DATA_DIR at it (the folder that holds "
    "`{example}` or a `{dataset}/` folder with it)"
)


class ChecksumError(OSError):
    """A downloaded (or present) file does not have the SHA-256 (or git blob id) its manifest
    gives."""


class FetchError(OSError):
    """A file could not be downloaded (offline, unreachable host, HTTP error)."""


@dataclass(frozen=True)
class ManifestFile:
    """One file of a dataset.

    Attributes:
        path: where it goes, relative to the data folder (``conll2018-task1/german-dev``).
        sha256: SHA-256 of the file as installed (after decompression), 64 hex digits; None
            where ``git_blob`` pins the file instead.
        size: its size in bytes as installed (None where the manifest does not give it).
        url: where to download it.
        upstream: its path in the upstream repository.
        compression: ``"gzip"`` when the download must be decompressed, else None.
        language: the language (shared-task name or ISO code), if the dataset has several.
        split: ``train-high``, ``dev``, ``train``, ``val``...
        records: number of examples (lines with data) in the file.
        git_blob: the file's git blob id (40 hex digits, :func:`inflect.io.atomic.git_blob_of`),
            as its repository's tree lists it: the checksum where ``sha256`` is None.
        commit: the upstream commit the file is pinned to, where the manifest gives one.
    """

    path: str
    sha256: str | None
    size: int | None
    url: str
    upstream: str
    compression: str | None = None
    language: str | None = None
    split: str | None = None
    records: int | None = None
    git_blob: str | None = None
    commit: str | None = None

    @property
    def name(self) -> str:
        """The file name (last part of :attr:`path`)."""
        return Path(self.path).name

    @property
    def checksum(self) -> str:
        """The checksum the file must have: its git blob id where pinned so, else its SHA-256."""
        return self.git_blob or self.sha256 or ""

    def checksum_of(self, path: str | os.PathLike[str]) -> str:
        """The checksum of the file at ``path``, of the kind :attr:`checksum` is."""
        return git_blob_of(path) if self.git_blob else sha256_of(path)


@dataclass(frozen=True)
class Manifest:
    """A dataset manifest.

    Attributes:
        name: the dataset's name (``"conll2018-task1"``).
        title: a one-line description.
        repository: the upstream repository (``"sigmorphon/conll2018"``).
        licence: the upstream licence or terms of use, short.
        licence_note: the licence in a sentence, with its source.
        citation: the reference to cite.
        files: every file, in manifest order.
        offline_hint: what to do where a file cannot be downloaded (the end of a
            :class:`FetchError`'s message); the manifest's ``offline_hint``, else the data
            folder's.
    """

    name: str
    title: str
    repository: str
    licence: str
    licence_note: str
    citation: str
    files: tuple[ManifestFile, ...]
    offline_hint: str = (
        "If you have a local copy of the data, point --data-dir or the environment variable "
        "INFLECT_DATA_DIR at it instead of fetching"
    )

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> Manifest:
        """Read a manifest file.

        Raises:
            ValueError: a required key is missing or a value is malformed (names the file).
            OSError: the file cannot be read.
        """
        with open(path, "rb") as handle:
            try:
                doc = tomllib.load(handle)
            except tomllib.TOMLDecodeError as exc:
                raise ValueError(f"{path}: not valid TOML: {exc}") from None
        try:
            template = doc.get("url_template", "{upstream}")
            files = []
            for i, entry in enumerate(doc["files"]):
                sha, blob = _checksums(i, entry)
                upstream = entry["upstream"]
                files.append(
                    ManifestFile(
                        path=entry["path"],
                        sha256=sha,
                        size=int(entry["size"]) if "size" in entry else None,
                        url=entry.get("url") or template.format(upstream=upstream),
                        upstream=upstream,
                        compression=entry.get("compression", doc.get("compression")),
                        language=entry.get("language"),
                        split=entry.get("split"),
                        records=entry.get("records"),
                        git_blob=blob,
                        commit=entry.get("commit"),
                    )
                )
            return cls(
                name=doc["name"],
                title=doc.get("title", doc["name"]),
                repository=doc.get("repository", ""),
                licence=doc["licence"],
                licence_note=doc.get("licence_note", ""),
                citation=doc.get("citation", ""),
                files=tuple(files),
                **({"offline_hint": doc["offline_hint"]} if "offline_hint" in doc else {}),
            )
        except KeyError as exc:
            raise ValueError(f"{path}: missing key {exc.args[0]!r}") from None
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None

    @property
    def languages(self) -> list[str]:
        """The languages with at least one file, sorted."""
        return sorted({f.language for f in self.files if f.language})

    def select(self, languages: Iterable[str] | None = None) -> list[ManifestFile]:
        """The files of the given languages (all files when None).

        Args:
            languages: names as the manifest writes them, or aliases known to
                :mod:`inflect.text.languages` (``de`` for ``german``).

        Raises:
            ValueError: a language that has no file in this dataset (closest names suggested).
        """
        if languages is None:
            return list(self.files)
        known = set(self.languages)
        wanted = []
        for language in languages:
            name = language
            if name not in known:
                spec = _spec_or_none(language)
                name = spec.name if spec is not None else language
            if name not in known:
                close = difflib.get_close_matches(language, sorted(known), n=3)
                hint = f"; did you mean {', '.join(close)}?" if close else ""
                raise ValueError(f"dataset {self.name!r} has no language {language!r}{hint}")
            wanted.append(name)
        return [f for f in self.files if f.language in wanted]


def _checksums(i: int, entry: dict) -> tuple[str | None, str | None]:
    """``(sha256, git_blob)`` of ``files[i]``: at least one, each lowercase hex of its length
    (64, 40), else a ValueError."""
    sha, blob = entry.get("sha256"), entry.get("git_blob")
    if sha is None and blob is None:
        raise KeyError("sha256")  # or git_blob
    for key, value, length in (("sha256", sha, 64), ("git_blob", blob, 40)):
        if value is not None and (
            len(value) != length or any(c not in "0123456789abcdef" for c in value)
        ):
            raise ValueError(f"files[{i}]: {key} is not {length} lowercase hex digits ({value!r})")
    return sha, blob


def manifest_names() -> list[str]:
    """Names of the shipped manifests, sorted."""
    return sorted(p.stem for p in data_path("datasets").glob("*.toml"))


def load_manifest(name: str | os.PathLike[str]) -> Manifest:
    """A shipped manifest by name (``"conll2018-task1"``), or any manifest file by path.

    Raises:
        ValueError: no shipped manifest has that name (the message lists them), or it is
            malformed.
    """
    candidate = Path(name)
    if candidate.suffix == ".toml" and candidate.is_file():
        return Manifest.from_toml(candidate)
    path = data_path("datasets") / f"{name}.toml"
    if not path.is_file():
        raise ValueError(f"unknown dataset {str(name)!r}; known: {', '.join(manifest_names())}")
    return Manifest.from_toml(path)


_data_dir_of = data_dir  # for functions whose `data_dir` parameter shadows the function


def _canonical_language(language: str) -> str:
    """The shared-task name of ``language`` (any alias known to :mod:`inflect.text.languages`).

    Raises:
        UnknownLanguageError: no language has that name (the message suggests the closest).
    """
    return resolve(language).name


def _spec_or_none(language: str) -> LanguageSpec | None:
    try:
        return resolve(language)
    except UnknownLanguageError:
        return None


def locate(language: str, split: str, data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The file of one language and split of CoNLL–SIGMORPHON 2018 task 1.

    Looks for ``<dir>/<language>-<split>`` and ``<dir>/conll2018-task1/<language>-<split>``, where
    ``<dir>`` is :func:`data_dir` of ``data_dir``; ``language`` may be any alias known to
    :mod:`inflect.text.languages` (``de``, ``deu``, ``German``).

    Raises:
        ValueError: an unknown split.
        UnknownLanguageError: (a ValueError) no file under that name and no language known by
            it; the message suggests the closest names.
        FileNotFoundError: no such file; the message says how to fetch it or where to point
            ``--data-dir`` / ``INFLECT_DATA_DIR``; or the language has no such training
            setting in the shared task.
    """
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")
    folder = _data_dir_of(data_dir)
    names = [language]
    tried = []
    for name in names:
        for candidate in (folder / f"{name}-{split}", folder / CONLL2018 / f"{name}-{split}"):
            if candidate.is_file():
                return candidate
            tried.append(str(candidate))
        if len(names) == 1:
            # Not there under the literal name: try the shared-task name of the alias.
            canonical = _canonical_language(language)
            if canonical != language:
                names.append(canonical)
    if split.startswith("train-"):
        spec = resolve(names[-1]) if len(names) > 1 else _spec_or_none(language)
        setting = split.removeprefix("train-")
        if spec is not None and setting not in spec.settings:
            raise FileNotFoundError(
                f"{spec.name} has no {setting}-setting training data in CoNLL–SIGMORPHON 2018 "
                f"task 1 (it has: {', '.join(spec.settings) or 'none'})"
            )
    how = _HOW_TO_POINT.format(dataset=CONLL2018, example=f"{names[-1]}-{split}")
    raise FileNotFoundError(
        f"no {split} file for language {language!r} in the data folder {folder} "
        f"(looked for {' and '.join(tried)}); {how}"
    )


def locate_file(entry: ManifestFile, data_dir: str | os.PathLike[str] | None = None) -> Path | None:
    """Where a manifest file is in the data folder (``<dir>/<path>`` or ``<dir>/<name>``), or
    None when it is absent."""
    folder = _data_dir_of(data_dir)
    for candidate in (folder / entry.path, folder / entry.name):
        if candidate.is_file():
            return candidate
    return None


@dataclass(frozen=True)
class FetchProgress:
    """One progress event of :func:`fetch`.

    Attributes:
        file: the file concerned.
        index: its position among the files to fetch (0-based).
        count: how many files are fetched.
        done: bytes received so far for this file (compressed bytes for gzip downloads).
        total: the download's size in bytes if the server said, else None.
        status: ``"start"``, ``"progress"``, ``"done"`` (downloaded and verified) or
            ``"present"`` (already there with the right checksum; nothing downloaded).
    """

    file: ManifestFile
    index: int
    count: int
    done: int
    total: int | None
    status: str


@dataclass(frozen=True)
class FetchResult:
    """What :func:`fetch` did: files downloaded and files already present (paths)."""

    downloaded: tuple[Path, ...]
    present: tuple[Path, ...]


def _download(
    entry: ManifestFile,
    target: Path,
    report: Callable[[int, int | None], None],
    timeout: float,
    created: list[Path],
    offline_hint: str = Manifest.offline_hint,
) -> None:
    """Download ``entry`` to a temporary file beside ``target``, verify, rename into place
    (:func:`inflect.io.atomic.atomic_write`).

    The connection is opened before any folder is created; folders created are appended to
    ``created`` (the caller removes them again if the fetch fails). A connection that ends
    before the ``Content-Length`` the server gave is a :class:`FetchError` (interrupted).
    """
    try:
        response = urllib.request.urlopen(entry.url, timeout=timeout)
    except urllib.error.HTTPError as exc:
        raise FetchError(f"could not download {entry.url}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise FetchError(
            f"could not download {entry.url}: {reason}. You seem to be offline or the host "
            f"is unreachable. {offline_hint}"
        ) from None

    def write(temp: Path) -> None:
        length = response.headers.get("Content-Length")
        total = int(length) if length and length.isdigit() else None
        counted = _CountingReader(response, report, total)
        source = gzip.GzipFile(fileobj=counted) if entry.compression == "gzip" else counted
        digest = hashlib.sha256()
        with open(temp, "wb") as out:
            while True:
                try:
                    block = source.read(1 << 16)
                except (OSError, EOFError, http.client.HTTPException) as exc:
                    raise FetchError(f"download of {entry.url} failed: {exc!r}") from None
                if not block:
                    break
                digest.update(block)
                out.write(block)
        if total is not None and counted.done < total:
            raise FetchError(
                f"download of {entry.url} was interrupted after {counted.done:,} of {total:,} "
                "bytes; nothing was installed: fetch again"
            )
        actual = entry.checksum_of(temp) if entry.git_blob else digest.hexdigest()
        if actual != entry.checksum:
            kind = "git blob id" if entry.git_blob else "SHA-256"
            raise ChecksumError(
                f"checksum mismatch for {entry.url}: expected {kind} {entry.checksum}, got "
                f"{actual}; the file was not installed (upstream changed or the download was "
                f"corrupted)"
            )

    # a failed write is an OutputError naming the data file; download errors pass unchanged
    with response, reporting(target, keep=(FetchError, ChecksumError)):
        created += make_folders(target.parent)
        atomic_write(target, write)


class _CountingReader:
    """A file-like wrapper that reports bytes read."""

    def __init__(self, raw, report: Callable[[int, int | None], None], total: int | None):
        self._raw = raw
        self._report = report
        self._total = total
        self._done = 0

    done = property(lambda self: self._done, doc="Bytes read so far.")

    def read(self, size: int = -1) -> bytes:
        block = self._raw.read(size)
        self._done += len(block)
        self._report(self._done, self._total)
        return block


def fetch(
    dataset: str | Manifest,
    languages: Iterable[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[FetchProgress], None] | None = None,
    timeout: float = 30.0,
) -> FetchResult:
    """Download a dataset's files into the data folder, verifying each SHA-256.

    Each file is written to a temporary file in its destination folder, decompressed when the
    manifest says ``gzip``, checked against its SHA-256 and only then renamed to its final name,
    so a partial or corrupt file never sits under the final name. Files already present with the
    right checksum (as ``<dir>/<path>`` or, for a flat local copy, ``<dir>/<name>``) are not
    downloaded again.

    Args:
        dataset: a manifest name (``"conll2018-task1"``, ``"multi30k"``) or a :class:`Manifest`.
        languages: only these languages (all when None).
        data_dir: the data folder (default :func:`data_dir`).
        progress: called with a :class:`FetchProgress` at each step.
        timeout: seconds to wait for the server before giving up.

    Returns:
        The files downloaded and those already present.

    Raises:
        ValueError: unknown dataset or language.
        FetchError: offline, unreachable host or HTTP error (the message says how to use a local
            copy instead).
        ChecksumError: a download did not match its checksum (nothing installed under its name).
        OutputError: the data folder cannot be written (checked before the first download; a
            full disk while writing), naming the file or folder; no empty folder is left behind.
    """
    manifest = dataset if isinstance(dataset, Manifest) else load_manifest(dataset)
    folder = _data_dir_of(data_dir)
    files = manifest.select(languages)
    downloaded: list[Path] = []
    present: list[Path] = []
    created: list[Path] = []
    try:
        for index, entry in enumerate(files):
            target = folder / entry.path

            def emit(status: str, done: int = 0, total: int | None = None) -> None:
                if progress is not None:
                    progress(FetchProgress(entry, index, len(files), done, total, status))  # noqa: B023

            existing = locate_file(entry, folder)
            found = entry.checksum_of(existing) if existing is not None else None
            if found == entry.checksum:
                present.append(existing)
                emit("present", entry.size, entry.size)
                continue
            if not downloaded:  # before the first download: can the folder be written?
                check_output_folder(folder)
            emit("start")
            try:
                _download(
                    entry, target, lambda done, total: emit("progress", done, total), timeout,
                    created, manifest.offline_hint,
                )
            except FetchError as exc:
                if found is None:
                    raise
                raise FetchError(
                    f"{existing} is there but fails its "
                    f"{'git blob id' if entry.git_blob else 'SHA-256'} check (the manifest has "
                    f"{entry.checksum}, the file {found}: edited, truncated or another version), "
                    f"and downloading it again failed: {exc}"
                ) from None
            downloaded.append(target)
            emit("done", entry.size, entry.size)
    except BaseException:
        remove_empty_folders(created)  # files verified and installed stay; empty folders go
        raise
    return FetchResult(tuple(downloaded), tuple(present))


@dataclass(frozen=True)
class FileState:
    """A manifest file's state in the data folder: ``"ok"``, ``"missing"`` or ``"mismatch"``."""

    file: ManifestFile
    path: Path | None
    state: str


def verify(
    dataset: str | Manifest,
    languages: Iterable[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
) -> list[FileState]:
    """Check the dataset's files present in the data folder against their SHA-256."""
    manifest = dataset if isinstance(dataset, Manifest) else load_manifest(dataset)
    states = []
    for entry in manifest.select(languages):
        path = locate_file(entry, data_dir)
        if path is None:
            states.append(FileState(entry, None, "missing"))
        else:
            ok = entry.checksum_of(path) == entry.checksum
            states.append(FileState(entry, path, "ok" if ok else "mismatch"))
    return states


@dataclass(frozen=True)
class LanguageSummary:
    """One language of a dataset, from its manifest (what ``inflect data list`` shows).

    Attributes:
        language: the language.
        records: examples per split (``{"train-high": 10000, "dev": 1000, ...}``).
        size: bytes of all its files.
        files: number of its files.
        present: how many of them are in the data folder (by name; not checksummed).
    """

    language: str
    records: dict[str, int]
    size: int
    files: int
    present: int

    @property
    def settings(self) -> tuple[str, ...]:
        """Training settings with a file (``high``, ``medium``, ``low``)."""
        return tuple(s for s in SETTINGS if f"train-{s}" in self.records)


def language_summary(
    dataset: str | Manifest, data_dir: str | os.PathLike[str] | None = None
) -> list[LanguageSummary]:
    """Per-language summary of a dataset's manifest, sorted by language."""
    manifest = dataset if isinstance(dataset, Manifest) else load_manifest(dataset)
    rows = []
    for language in manifest.languages:
        files = [f for f in manifest.files if f.language == language]
        rows.append(
            LanguageSummary(
                language=language,
                records={f.split or f.name: f.records or 0 for f in files},
                size=sum(f.size for f in files),
                files=len(files),
                present=sum(locate_file(f, data_dir) is not None for f in files),
            )
        )
    return rows


def count_present(dataset: str | Manifest, data_dir: str | os.PathLike[str] | None = None) -> int:
    """How many of a dataset's files are in the data folder (by name; not checksummed)."""
    manifest = dataset if isinstance(dataset, Manifest) else load_manifest(dataset)
    return sum(locate_file(f, data_dir) is not None for f in manifest.files)
