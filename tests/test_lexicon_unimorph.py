"""UniMorph on demand: the pins, the git blob id, fetching from a real HTTP server on 127.0.0.1
(a good file, a wrong blob id, an interrupted download, no server), adding a file by hand, the
index, and the answers that name it.

The served files are small UniMorph-layout files written here; each expected blob id is computed
by ``git hash-object`` where git is installed, else by its definition (SHA-1 of ``blob <size>\\0``
and the bytes) written out here with :mod:`hashlib`.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import shutil
import socket
import subprocess
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from inflect.cli import main
from inflect.corpora.manifests import ChecksumError, FetchError, load_manifest
from inflect.io.atomic import git_blob_of
from inflect.lexicon import LexiconError, load_lexicons
from inflect.lexicon.unimorph import (
    UniMorphLexicon,
    add_unimorph,
    fetch_unimorph,
    installed,
    pins,
)
from inflect.text.records import TagBundle

ENGLISH = "zorp\tzorped\tV;PST\nzorp\tzorpt\tV;PST\nzorp\tzorping\tV;V.PTCP;PRS\nblick\tblacked\tV;PST\n"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def blob_id(data: bytes) -> str:
    """The git blob id of ``data``: git's own where installed, else the definition."""
    if shutil.which("git"):
        out = subprocess.run(["git", "hash-object", "--stdin"], input=data, capture_output=True,
                             check=True)
        return out.stdout.decode().strip()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Server:
    """A real HTTP server on 127.0.0.1: ``/NAME`` serves ``files[NAME]``; ``/cut/NAME`` promises
    the whole length and closes the connection after half of it."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.requests: list[str] = []
        files, requests = self.files, self.requests

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # the standard library names it so
                requests.append(self.path)
                cut = self.path.startswith("/cut/")
                data = files.get(self.path.removeprefix("/cut/").lstrip("/"))
                if data is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2] if cut else data)
                self.close_connection = True

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


def manifest_file(tmp_path: Path, url: str, blob: str, language: str = "english",
                  iso: str = "eng") -> Path:
    """A manifest of the pins' form with one file at ``url``."""
    path = tmp_path / "pins.toml"
    path.write_text(
        'name = "unimorph"\nlicence = "CC BY-SA"\n'
        'offline_hint = "Download the file from that address by other means, then add it: '
        'inflect lexicon add FILE --lang LANGUAGE"\n'
        f'[[files]]\nlanguage = "{language}"\npath = "unimorph/{iso}/{iso}"\n'
        f'upstream = "{iso}/{COMMIT}/{iso}"\nurl = "{url}"\ncommit = "{COMMIT}"\n'
        f'git_blob = "{blob}"\n',
        encoding="utf-8",
    )
    return path


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


def test_git_blob_of_is_git_s_id():
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "hello"
        path.write_bytes(b"hello\n")
        assert git_blob_of(path) == blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"
        path.write_bytes(ENGLISH.encode())
        assert git_blob_of(path) == blob_id(ENGLISH.encode())


def test_the_pins_name_a_commit_and_a_blob_of_each_language_of_the_table():
    manifest = pins()
    languages = set(manifest.languages)
    assert {"english", "french", "spanish", "italian", "russian", "german"} <= languages
    assert len(languages) >= 30
    for entry in manifest.files:
        iso = entry.upstream.split("/")[0]
        assert len(entry.git_blob) == 40 and len(entry.commit) == 40
        assert entry.url == (f"https://raw.githubusercontent.com/unimorph/{iso}/{entry.commit}/"
                             f"{entry.upstream.split('/', 2)[2]}")
        assert entry.sha256 is None and entry.checksum == entry.git_blob
    assert "inflect lexicon add FILE --lang" in manifest.offline_hint


def test_a_good_file_is_fetched_verified_indexed_and_answers(server, tmp_path):
    data = ENGLISH.encode()
    server.files["eng"] = data
    manifest = load_manifest(manifest_file(tmp_path, f"{server.url}/eng", blob_id(data)))
    home = tmp_path / "data"
    [done] = fetch_unimorph(["en"], home, manifest=manifest)
    assert (home / "unimorph" / "eng" / "eng").read_bytes() == data
    assert done.language == "english" and done.forms == 4 and done.commits == COMMIT[:7]
    assert files_under(home / "unimorph") == ["eng", "eng/eng", "english.parquet"]
    lexicon = UniMorphLexicon(home)
    assert lexicon.languages() == {"english"}
    found = lexicon.lookup("english", "zorp", TagBundle.parse("PST;V"))
    assert [a.form for a in found] == ["zorped", "zorpt"]
    assert [a.source for a in found] == [f"UniMorph eng {COMMIT[:7]} (eng:1)",
                                         f"UniMorph eng {COMMIT[:7]} (eng:2)"]
    assert lexicon.lookup("english", "zorp", TagBundle.parse("V;NFIN")) == ()
    assert lexicon.lookup("german", "zorp", TagBundle.parse("V;PST")) == ()
    assert [i.language for i in installed(home)] == ["english"]
    fetch_unimorph(["english"], home, manifest=manifest)  # there already: not downloaded again
    assert server.requests == ["/eng"]


def test_a_wrong_blob_id_is_refused_and_leaves_nothing(server, tmp_path):
    server.files["eng"] = ENGLISH.encode()
    wrong = blob_id(b"another file\n")
    manifest = load_manifest(manifest_file(tmp_path, f"{server.url}/eng", wrong))
    home = tmp_path / "data"
    with pytest.raises(ChecksumError, match=f"expected git blob id {wrong}"):
        fetch_unimorph(["english"], home, manifest=manifest)
    assert files_under(home) == []


def test_an_interrupted_download_is_refused_and_leaves_nothing(server, tmp_path):
    data = ENGLISH.encode()
    server.files["eng"] = data
    manifest = load_manifest(manifest_file(tmp_path, f"{server.url}/cut/eng", blob_id(data)))
    home = tmp_path / "data"
    with pytest.raises(FetchError, match=f"interrupted after {len(data) // 2:,} of {len(data):,}"):
        fetch_unimorph(["english"], home, manifest=manifest)
    assert files_under(home) == []


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_offline_the_error_names_the_address_and_how_to_add_a_copy(tmp_path, monkeypatch):
    url = f"http://127.0.0.1:{closed_port()}/eng"
    manifest = load_manifest(manifest_file(tmp_path, url, blob_id(b"x")))
    home = tmp_path / "data"
    with pytest.raises(FetchError) as caught:
        fetch_unimorph(["english"], home, manifest=manifest)
    assert url in str(caught.value)
    assert "inflect lexicon add FILE --lang LANGUAGE" in str(caught.value)
    assert files_under(home) == []
    monkeypatch.setattr("inflect.lexicon.unimorph.pins", lambda: manifest)
    out = CliRunner().invoke(main, ["lexicon", "fetch", "english", "--data-dir", str(home)])
    assert out.exit_code == 1
    assert url in out.output and "inflect lexicon add FILE --lang" in out.output
    assert "Traceback" not in out.output and len(out.output.strip().splitlines()) == 1


def test_a_file_added_by_hand_is_verified_against_the_pin(tmp_path, monkeypatch):
    data = ENGLISH.encode()
    manifest = load_manifest(manifest_file(tmp_path, "http://127.0.0.1:9/eng", blob_id(data)))
    monkeypatch.setattr("inflect.lexicon.unimorph.pins", lambda: manifest)
    copy = tmp_path / "downloaded-eng.txt"
    copy.write_bytes(data)
    home = tmp_path / "data"
    done, pinned = add_unimorph(copy, "eng", home)
    assert pinned and done.commits == COMMIT[:7]
    assert (home / "unimorph" / "eng" / "eng").read_bytes() == data

    other = tmp_path / "mine.tsv"
    other.write_text("blick\tblicked\tV;PST\n", encoding="utf-8")
    out = CliRunner().invoke(main, ["lexicon", "add", str(other), "--lang", "english",
                                    "--data-dir", str(home)])
    assert out.exit_code == 0, out.output
    assert "not the pinned UniMorph file" in out.output
    found = UniMorphLexicon(home).lookup("english", "blick", TagBundle.parse("V;PST"))
    assert [a.form for a in found] == ["blacked", "blicked"]  # the files in name order
    assert found[1].source == f"UniMorph eng unpinned blob {blob_id(other.read_bytes())[:7]} " \
                              f"(mine.tsv.{blob_id(other.read_bytes())[:7]}:1)"

    bad = tmp_path / "bad.tsv"
    bad.write_text("no tabs here\n", encoding="utf-8")
    before = files_under(home)
    with pytest.raises(LexiconError, match="no line in the layout"):
        add_unimorph(bad, "german", home)
    assert files_under(home) == before  # nothing of the refused file is left
    # beside readable files of its language too: refused, and the index as before
    with pytest.raises(LexiconError, match=r"bad\.tsv: no line in the layout"):
        add_unimorph(bad, "english", home)
    assert files_under(home) == before
    found = UniMorphLexicon(home).lookup("english", "blick", TagBundle.parse("V;PST"))
    assert [a.form for a in found] == ["blacked", "blicked"]

    listed = CliRunner().invoke(main, ["lexicon", "list", "--data-dir", str(home),
                                       "--format", "tsv"])
    assert listed.exit_code == 0, listed.output
    rows = [line.split("\t") for line in listed.output.splitlines()]
    unimorph = [r for r in rows if r[0] == "UniMorph"]
    assert unimorph == [["UniMorph", "english", f"{COMMIT[:7]}, unpinned", "5",
                         str(len(data) + other.stat().st_size), ""]]


def test_answers_list_unimorph_after_the_user_s_file_and_evaluate_treats_it_as_shipped(
    tmp_path, monkeypatch, one_thread
):
    home = tmp_path / "data"
    copy = tmp_path / "eng"
    copy.write_bytes(ENGLISH.encode())
    add_unimorph(copy, "english", home)
    mine = tmp_path / "english.tsv"
    mine.write_text("zorp\tzarp\tV;PST\nzorp\tzorped\tV;PST\n", encoding="utf-8")
    lexicons = load_lexicons([mine], dictionaries=False, shipped=False, data_dir=home)
    found = lexicons.lookup("english", "zorp", TagBundle.parse("V;PST"))
    assert [a.form for a in found] == ["zarp", "zorped", "zorpt"]
    assert found[1].source.startswith(f"{mine}:2; UniMorph eng unpinned blob ")

    monkeypatch.setenv("INFLECT_DATA_DIR", str(home))
    out = CliRunner().invoke(main, ["predict", "--lang", "english", "zorp", "V;PST", "--format",
                                    "jsonl"])
    assert out.exit_code == 0, out.output
    forms = json.loads(out.output)["forms"]
    assert [f["form"] for f in forms if f["attested"]][:2] == ["zorped", "zorpt"]
    assert "UniMorph eng" in forms[0]["source"]

    gold = tmp_path / "english-gold"
    gold.write_text(ENGLISH, encoding="utf-8")
    refused = CliRunner().invoke(main, ["evaluate", "--gold", str(gold), "--lang", "english",
                                        "--lexicon", "unimorph"])
    assert refused.exit_code == 1
    assert "attests the gold form of" in refused.output and "UniMorph" in refused.output


def test_lexicon_remove_uninstalls_what_add_installed_and_nothing_else(tmp_path):
    home = tmp_path / "data"
    for language, text in (("english", ENGLISH), ("german", "Haus\tHäuser\tN;NOM;PL\n")):
        copy = tmp_path / f"{language}.txt"
        copy.write_text(text, encoding="utf-8")
        add_unimorph(copy, language, home)
    assert [i.language for i in installed(home)] == ["english", "german"]
    before = files_under(home)

    def remove(*args):
        return CliRunner().invoke(main, ["lexicon", "remove", *args, "--data-dir", str(home)])

    # a language not installed, beside one that is: nothing removed, status 1, both named
    refused = remove("eng", "french")
    assert refused.exit_code == 1 and "french: not installed" in refused.output
    assert "installed: english, german" in refused.output
    assert files_under(home) == before
    assert remove("germn").exit_code == 2  # no language's name: a usage error
    assert remove().exit_code == 2

    done = remove("eng")
    assert done.exit_code == 0, done.output
    assert done.output.startswith("removed UniMorph english (eng): 4 forms, 1 file(s)")
    german = blob_id("Haus\tHäuser\tN;NOM;PL\n".encode())[:7]
    assert files_under(home / "unimorph") == ["deu", f"deu/german.txt.{german}", "german.parquet"]
    assert UniMorphLexicon(home).lookup("english", "zorp", TagBundle.parse("V;PST")) == ()
    assert [a.form for a in UniMorphLexicon(home).lookup(
        "german", "Haus", TagBundle.parse("N;NOM;PL"))] == ["Häuser"]


def test_pinning_leaves_out_git_lfs_pointers_and_pins_the_blob_git_lists(tmp_path):
    """recipes/dictionaries/pin_unimorph.py on a real git repository: the inflection file is
    pinned with the blob id computed by hand (SHA-1 of ``blob <size>\\0`` + bytes), an LFS
    pointer named like one is left out, another file is not an inflection file."""
    import importlib.util
    import sys

    if shutil.which("git") is None:
        pytest.skip("needs git")
    path = Path(__file__).resolve().parent.parent / "recipes" / "dictionaries" / "pin_unimorph.py"
    spec = importlib.util.spec_from_file_location("pin_unimorph", path)
    pin = importlib.util.module_from_spec(spec)
    sys.modules["pin_unimorph"] = pin
    spec.loader.exec_module(pin)
    repo = tmp_path / "fin"
    repo.mkdir()
    data = b"talo\ttalossa\tN;IN+ESS;SG\n"
    (repo / "fin.1").write_bytes(data)
    (repo / "fin.2").write_text("version https://git-lfs.github.com/spec/v1\n"
                                "oid sha256:" + "0" * 64 + "\nsize 123456\n")
    (repo / "README.md").write_text("not an inflection file\n")
    env = ["-c", "user.name=t", "-c", "user.email=t@example.org"]
    for args in (["init", "-q"], ["add", "."], [*env, "commit", "-q", "-m", "x"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    blocks = pin.entries(repo, "fin", "finnish")
    assert len(blocks) == 1 and 'path = "unimorph/fin/fin.1"' in blocks[0]
    by_hand = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    assert f'git_blob = "{by_hand}"' in blocks[0]
