"""Dataset manifests, the data folder, locating files and fetching them (inflect.corpora.manifests).

Downloads are tested against a tiny HTTP server on 127.0.0.1 (and a file:// URL): there is no
network in CI.
"""

from __future__ import annotations

import gzip
import hashlib
import http.server
import os
import socket
import stat
import threading
from collections import Counter
from pathlib import Path

import platformdirs
import pytest

from inflect.corpora.manifests import (
    ChecksumError,
    FetchError,
    Manifest,
    data_dir,
    fetch,
    load_manifest,
    locate,
    verify,
)
from inflect.text.languages import UnknownLanguageError

# --- the data folder and locate ---------------------------------------------------------------


def test_data_dir_precedence(monkeypatch, tmp_path):
    monkeypatch.delenv("INFLECT_DATA_DIR", raising=False)
    assert data_dir() == Path(platformdirs.user_cache_dir("sparse-inflect"))
    monkeypatch.setenv("INFLECT_DATA_DIR", str(tmp_path / "env"))
    assert data_dir() == tmp_path / "env"
    assert data_dir(tmp_path / "flag") == tmp_path / "flag"


@pytest.mark.parametrize("nested", [False, True])
def test_locate_both_layouts_and_aliases(monkeypatch, tmp_path, nested):
    folder = tmp_path / "conll2018-task1" if nested else tmp_path
    folder.mkdir(exist_ok=True)
    (folder / "german-dev").write_text("a\tb\tN\n", encoding="utf-8")
    (folder / "north-frisian-train-low").write_text("a\tb\tN\n", encoding="utf-8")
    assert locate("german", "dev", tmp_path) == folder / "german-dev"
    assert locate("de", "dev", tmp_path) == folder / "german-dev"
    assert locate("German", "dev", tmp_path) == folder / "german-dev"
    assert locate("north-frisian", "train-low", tmp_path) == folder / "north-frisian-train-low"
    monkeypatch.setenv("INFLECT_DATA_DIR", str(tmp_path))
    assert locate("deu", "dev") == folder / "german-dev"


def test_locate_missing_file_says_how_to_get_it(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        locate("german", "train-high", tmp_path)
    message = str(info.value)
    assert "inflect data fetch conll2018-task1" in message
    assert "--data-dir" in message and "INFLECT_DATA_DIR" in message
    assert str(tmp_path / "german-train-high") in message


def test_locate_setting_the_language_lacks(tmp_path):
    with pytest.raises(FileNotFoundError, match="middle-low-german has no high-setting"):
        locate("middle-low-german", "train-high", tmp_path)


def test_locate_rejects_unknown_split_and_language(tmp_path):
    with pytest.raises(ValueError, match="unknown split 'test'"):
        locate("german", "test", tmp_path)
    with pytest.raises(UnknownLanguageError, match="german"):
        locate("germn", "dev", tmp_path)


def test_locate_a_file_of_an_unlisted_language_by_literal_name(tmp_path):
    (tmp_path / "gothic-dev").write_text("a\tb\tN\n", encoding="utf-8")
    assert locate("gothic", "dev", tmp_path) == tmp_path / "gothic-dev"


# --- the shipped manifests --------------------------------------------------------------------


def test_conll2018_manifest():
    manifest = load_manifest("conll2018-task1")
    assert manifest.repository == "sigmorphon/conll2018"
    assert "CC BY-SA" in manifest.licence
    assert len(manifest.files) == 497 and len(manifest.languages) == 103
    per_split = Counter(f.split for f in manifest.files)
    assert per_split == {
        "train-high": 86,
        "train-medium": 102,
        "train-low": 103,
        "dev": 103,
        "covered-test": 103,
    }
    records = Counter()
    for f in manifest.files:
        records[f.split] += f.records
        assert f.path == f"conll2018-task1/{f.language}-{f.split}"
        assert (
            f.url == f"https://raw.githubusercontent.com/sigmorphon/conll2018/master/{f.upstream}"
        )
        assert f.compression is None
    assert (records["train-high"], records["train-medium"], records["train-low"]) == (
        735_610,
        95_323,
        10_261,
    )
    surprise = {f.language for f in manifest.files if f.upstream.startswith("task1/surprise/")}
    assert surprise == {
        "dutch",
        "german",
        "kannada",
        "middle-low-german",
        "north-frisian",
        "old-english",
        "polish",
        "russian",
    }
    assert all(
        f.upstream == f"task1/all/{f.name}" for f in manifest.files if f.language not in surprise
    )


def test_multi30k_manifest():
    manifest = load_manifest("multi30k")
    assert manifest.repository == "multi30k/dataset"
    assert "non-commercial" in manifest.licence
    assert [(f.split, f.language) for f in manifest.files] == [
        ("train", "de"),
        ("train", "en"),
        ("val", "de"),
        ("val", "en"),
    ]
    for f in manifest.files:
        assert f.compression == "gzip"
        assert f.upstream == f"data/task1/raw/{f.split}.{f.language}.gz"
        assert f.url.startswith("https://raw.githubusercontent.com/multi30k/dataset/")
    assert [f.records for f in manifest.files] == [29_000, 29_000, 1_014, 1_014]


def test_unknown_dataset_lists_the_known_ones():
    with pytest.raises(ValueError, match="conll2018-task1, multi30k"):
        load_manifest("conll2017")


def test_select_languages_by_alias_and_suggests_names():
    manifest = load_manifest("conll2018-task1")
    assert {f.language for f in manifest.select(["de"])} == {"german"}
    assert len(manifest.select(["german", "zulu"])) == 10
    with pytest.raises(ValueError, match="did you mean"):
        manifest.select(["germn"])


@pytest.mark.shared_data
def test_manifest_checksums_match_the_shared_copy(conll2018, multi30k):
    states = verify("conll2018-task1", data_dir=conll2018)
    assert len(states) == 497
    assert Counter(s.state for s in states) == {"ok": 497}
    states = verify("multi30k", data_dir=multi30k.parent)
    assert Counter(s.state for s in states) == {"ok": 4}


# --- fetch, against a local server ------------------------------------------------------------


class _Server:
    """A tiny HTTP server on 127.0.0.1 serving ``root``; counts the requests."""

    def __init__(self, root: Path):
        requests: list[str] = []

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(root), **kwargs)

            def log_message(self, *args):
                requests.append(self.path)

        self.requests = requests
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


def _manifest(path: Path, url_template: str, files: list[dict]) -> Manifest:
    lines = [
        'name = "toy"',
        'licence = "CC0"',
        f'url_template = "{url_template}"',
    ]
    for f in files:
        lines.append("[[files]]")
        lines += [f"{k} = {v!r}" if isinstance(v, int) else f'{k} = "{v}"' for k, v in f.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Manifest.from_toml(path)


@pytest.fixture
def upstream(tmp_path):
    """An upstream folder with one plain file and one gzip file, and a manifest for them."""
    root = tmp_path / "upstream"
    (root / "task1").mkdir(parents=True)
    plain = "Haus\tHäuser\tN;NOM;PL\n".encode()
    text = b"Ein Mann.\nZwei Hunde.\n"
    (root / "task1" / "toy-dev").write_bytes(plain)
    (root / "task1" / "val.de.gz").write_bytes(gzip.compress(text))
    entries = [
        {
            "language": "toy",
            "split": "dev",
            "path": "toy/toy-dev",
            "upstream": "task1/toy-dev",
            "sha256": hashlib.sha256(plain).hexdigest(),
            "size": len(plain),
        },
        {
            "language": "de",
            "split": "val",
            "path": "toy/val.de",
            "upstream": "task1/val.de.gz",
            "compression": "gzip",
            "sha256": hashlib.sha256(text).hexdigest(),
            "size": len(text),
        },
    ]
    return root, entries, {"toy/toy-dev": plain, "toy/val.de": text}


def test_fetch_downloads_verifies_and_skips_present_files(tmp_path, upstream):
    root, entries, expected = upstream
    with _Server(root) as server:
        manifest = _manifest(tmp_path / "toy.toml", server.url + "/{upstream}", entries)
        events = []
        target = tmp_path / "data"
        old_umask = os.umask(0o022)
        try:
            result = fetch(manifest, data_dir=target, progress=events.append)
        finally:
            os.umask(old_umask)
        assert sorted(server.requests) == ["/task1/toy-dev", "/task1/val.de.gz"]
        for rel, content in expected.items():
            assert (target / rel).read_bytes() == content  # gzip was decompressed
            assert stat.S_IMODE((target / rel).stat().st_mode) == 0o644  # readable by others
        assert sorted(p.name for p in (target / "toy").iterdir()) == ["toy-dev", "val.de"]
        assert len(result.downloaded) == 2 and not result.present
        statuses = [(e.file.name, e.status) for e in events if e.status != "progress"]
        assert statuses == [
            ("toy-dev", "start"),
            ("toy-dev", "done"),
            ("val.de", "start"),
            ("val.de", "done"),
        ]
        assert any(e.status == "progress" and e.done > 0 for e in events)
        # A second fetch finds both files with the right checksum: nothing is requested.
        again = fetch(manifest, data_dir=target)
        assert len(again.present) == 2 and not again.downloaded
        assert len(server.requests) == 2
        # A flat local copy (files directly in the folder) counts as present too.
        flat = tmp_path / "flat"
        flat.mkdir()
        (flat / "toy-dev").write_bytes(expected["toy/toy-dev"])
        assert fetch(manifest, languages=["toy"], data_dir=flat).present == (flat / "toy-dev",)
        assert len(server.requests) == 2
        # Only one language.
        other = tmp_path / "other"
        fetch(manifest, languages=["de"], data_dir=other)
        assert [p.name for p in (other / "toy").iterdir()] == ["val.de"]


def test_fetch_checksum_mismatch_leaves_nothing_under_the_final_name(tmp_path, upstream):
    root, entries, _ = upstream
    entries[0]["sha256"] = "0" * 64
    with _Server(root) as server:
        manifest = _manifest(tmp_path / "toy.toml", server.url + "/{upstream}", entries[:1])
        target = tmp_path / "data"
        with pytest.raises(ChecksumError, match="checksum mismatch") as info:
            fetch(manifest, data_dir=target)
    assert "0" * 64 in str(info.value)
    assert not target.exists()  # neither the file, nor a temporary one, nor an empty folder


def test_fetch_replaces_a_corrupt_file(tmp_path, upstream):
    root, entries, expected = upstream
    target = tmp_path / "data"
    (target / "toy").mkdir(parents=True)
    (target / "toy" / "toy-dev").write_bytes(b"corrupt")
    with _Server(root) as server:
        manifest = _manifest(tmp_path / "toy.toml", server.url + "/{upstream}", entries[:1])
        result = fetch(manifest, data_dir=target)
    assert len(result.downloaded) == 1
    assert (target / "toy" / "toy-dev").read_bytes() == expected["toy/toy-dev"]


def test_fetch_from_a_file_url(tmp_path, upstream):
    root, entries, expected = upstream
    manifest = _manifest(tmp_path / "toy.toml", root.as_uri() + "/{upstream}", entries)
    fetch(manifest, data_dir=tmp_path / "data")
    assert (tmp_path / "data" / "toy" / "val.de").read_bytes() == expected["toy/val.de"]


def test_fetch_unreachable_host_says_so_plainly(tmp_path, upstream):
    _, entries, _ = upstream
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    manifest = _manifest(tmp_path / "toy.toml", f"http://127.0.0.1:{port}/{{upstream}}", entries)
    target = tmp_path / "data"
    with pytest.raises(FetchError) as info:
        fetch(manifest, data_dir=target, timeout=5)
    message = str(info.value)
    assert "offline or the host is unreachable" in message
    assert "--data-dir" in message and "INFLECT_DATA_DIR" in message
    assert not target.exists()  # no empty folder left behind


def test_fetch_offline_says_when_the_local_copy_fails_its_checksum(tmp_path, upstream):
    _, entries, expected = upstream
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    manifest = _manifest(
        tmp_path / "toy.toml", f"http://127.0.0.1:{port}/{{upstream}}", entries[:1]
    )
    local = tmp_path / "data" / "toy" / "toy-dev"
    local.parent.mkdir(parents=True)
    local.write_bytes(expected["toy/toy-dev"] + b"an added line\n")
    edited = hashlib.sha256(local.read_bytes()).hexdigest()
    with pytest.raises(FetchError) as info:
        fetch(manifest, data_dir=tmp_path / "data", timeout=5)
    message = str(info.value)
    assert f"{local} is there but fails its SHA-256 check" in message
    assert f"the manifest has {entries[0]['sha256']}, the file {edited}" in message
    assert "offline or the host is unreachable" in message
    assert local.read_bytes() == expected["toy/toy-dev"] + b"an added line\n"  # left as it was


def test_fetch_http_error(tmp_path, upstream):
    root, entries, _ = upstream
    entries[0]["upstream"] = "task1/absent"
    with _Server(root) as server:
        manifest = _manifest(tmp_path / "toy.toml", server.url + "/{upstream}", entries[:1])
        with pytest.raises(FetchError, match="HTTP 404"):
            fetch(manifest, data_dir=tmp_path / "data")
    assert not (tmp_path / "data").exists()


def test_manifest_errors_name_the_file(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('name = "x"\nlicence = "y"\n[[files]]\npath = "a"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.toml: missing key 'sha256'"):
        Manifest.from_toml(path)
    path.write_text(
        'name = "x"\nlicence = "y"\n[[files]]\npath = "a"\nupstream = "a"\nsize = 1\n'
        'sha256 = "abc"\n',
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match=r"bad.toml: files\[0\]: sha256 is not 64"):
        Manifest.from_toml(path)
