"""``use-wordnet`` all or nothing (issue 31): hostile, invalid and oversized WN-LMF files, a second English lexicon
and a mixed good/bad run each refused with exit 2 naming the file, the line and the rule, changing nothing; a run
killed (SIGTERM, SIGHUP, kill -9) at several points leaves the previous lexicon intact and usable, and the next run
leaves no temporary file; progress moves within a file; modes stay owner-only."""

from __future__ import annotations

import functools
import gzip
import http.server
import io
import json
import lzma
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tarfile
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from wordnet_data import SHOT_DRINK, english_lmf, other_lmf, write_tiny_wordnet

from annotator.cli import main
from annotator.data_import.limits import InputLimits
from annotator.lexicon.wordnet import WordnetLexicon, add_lexicons, lexicon_specifiers
from annotator.lexicon.wordnet_lmf import WordnetFileError
from annotator.lexicon.wordnet_store import PAUSE_ENV
from annotator.project import Project
from annotator.services.administration import update_project_limits
from annotator.services.importing import import_items
from annotator.services.prepopulate import prepopulate

BASE = ["tiny-cmn:1.0", "tiny-en:3.0", "tiny-it:1.0"]
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def base_project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """A project (IT, ZH) whose wordnet is tiny-en, tiny-it and tiny-cmn; tiny-iwn is left to add. Built once."""
    root = tmp_path_factory.mktemp("base")
    files = write_tiny_wordnet(root / "lmf")
    data = root / "data"
    assert main(["init", "--data", str(data), "--languages", "IT,ZH"]) == 0
    english, italian, _iwn, chinese = files
    assert main(["lexicon", "use-wordnet", "--data", str(data), str(english), str(italian), str(chinese)]) == 0
    return data, files


@pytest.fixture
def data(base_project: tuple[Path, list[Path]], tmp_path: Path) -> Path:
    copy = tmp_path / "data"
    shutil.copytree(base_project[0], copy)
    return copy


@pytest.fixture
def iwn(base_project: tuple[Path, list[Path]]) -> Path:
    return base_project[1][2]


def folder_state(data: Path) -> dict[str, bytes]:
    """Every file of the wordnet folder (the lock file aside): a refused or interrupted run must leave it as it was."""
    folder = data / "wordnet"
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "use-wordnet.lock"
    }


def leftovers(data: Path) -> list[str]:
    return sorted(p.name for p in (data / "wordnet").iterdir() if p.name.startswith(("build-", "unpack-")))


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


# --- refusals ---------------------------------------------------------------------------------------------

IWN = other_lmf("tiny-iwn")
EN = english_lmf()


def _edit(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


#: (name, content, rule, the text whose line the refusal names, or None for "the whole file")
HOSTILE = [
    ("entity.xml", _edit(EN, "a small drink of liquor", "a small&nbsp;drink of liquor"), "entity", "&nbsp;"),
    (
        "dtd.xml",
        _edit(IWN, '<!DOCTYPE LexicalResource SYSTEM "https://globalwordnet.github.io/schemas/WN-LMF-1.4.dtd">',
              '<!DOCTYPE LexicalResource [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>'),
        "lmf_header",
        "<!DOCTYPE",
    ),
    ("broken.xml", _edit(IWN, "</LexicalResource>", "</LexicalResourc>"), "not_well_formed", "</LexicalResourc>"),
    ("unknown-synset.xml", _edit(IWN, 'synset="tiny-iwn-10593115-n"', 'synset="tiny-iwn-99999999-n"'),
     "unknown_reference", "tiny-iwn-99999999-n"),
    ("no-ili.xml", _edit(IWN, ' ili="i92966"', ""), "lmf_attribute", '<Synset id="tiny-iwn-10593115-n"'),
    ("no-email.xml", _edit(IWN, ' email="t@example.org"', ""), "lmf_attribute", "<Lexicon "),
    ("odd-element.xml", _edit(IWN, '<Lemma writtenForm="tiratore" partOfSpeech="n"/>',
                              '<Lemma writtenForm="tiratore" partOfSpeech="n"/><Rogue/>'), "lmf_element", "<Rogue/>"),
    ("dup-synset.xml", _edit(IWN, '    <Synset id="tiny-iwn-10593115-n"',
                             '    <Synset id="tiny-iwn-00122661-n" ili="i1"/>\n    <Synset id="tiny-iwn-10593115-n"'),
     "duplicate_id", 'ili="i1"'),
    ("dup-form.xml", _edit(IWN, '<Lemma writtenForm="tiratore" partOfSpeech="n"/>',
                           '<Lemma writtenForm="tiratore" partOfSpeech="n"/>\n<Form writtenForm="tiratore"/>'),
     "duplicate_form", '<Form writtenForm="tiratore"/>'),
    ("extension.xml", _edit(IWN, "<Lexicon ", "<LexiconExtension ").replace("</Lexicon>", "</LexiconExtension>"),
     "lmf_extension", "<LexiconExtension"),
    ("second-english.xml", english_lmf("tiny-en2"), "one_english_lexicon", "<Lexicon "),
    ("not-wordnet30.xml", english_lmf("oewn", version="2024"), "english_wordnet_30", "<Lexicon "),
]  # fmt: skip


@pytest.mark.parametrize(("name", "content", "rule", "needle"), HOSTILE, ids=[case[0] for case in HOSTILE])
def test_a_bad_file_is_refused_with_file_line_and_rule_and_nothing_is_added(
    data: Path, iwn: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: str, rule: str,
    needle: str | None,
) -> None:  # fmt: skip
    bad = tmp_path / name
    bad.write_text(content, encoding="utf-8")
    before = folder_state(data)
    # the good file given first is not added either
    assert main(["lexicon", "use-wordnet", "--data", str(data), str(iwn), str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and f"[rule {rule}]" in err and "Nothing was added" in err and "Traceback" not in err
    if needle is not None:
        assert f", line {line_of(content, needle)}:" in err
    else:
        assert ", line " in err
    assert folder_state(data) == before and leftovers(data) == []
    assert lexicon_specifiers(data / "wordnet") == BASE


def test_a_bigger_file_than_the_projects_limit_is_refused_plain_or_compressed(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The limit (max_snapshot_mb) bounds the text read, so a plain file and a compression bomb are refused alike."""
    update_project_limits(Project.open(data), lambda _: replace(InputLimits(), max_snapshot_mb=1))
    before = folder_state(data)
    padding = "<!-- " + "x" * (3 << 19) + " -->\n"  # 1.5 MB of comment, well-formed
    lines = IWN.split("\n", 2)
    big = f"{lines[0]}\n{lines[1]}\n{padding}{lines[2]}"
    plain = tmp_path / "big.xml"
    plain.write_text(big, encoding="utf-8")
    bomb_gz = tmp_path / "bomb.xml.gz"
    bomb_gz.write_bytes(gzip.compress(big.encode()))
    bomb_xz = tmp_path / "bomb.xml.xz"
    bomb_xz.write_bytes(lzma.compress(big.encode()))
    assert bomb_gz.stat().st_size < 100_000 and bomb_xz.stat().st_size < 100_000
    for bad in (plain, bomb_gz, bomb_xz):
        assert main(["lexicon", "use-wordnet", "--data", str(data), str(bad)]) == 2
        err = capsys.readouterr().err
        assert str(bad) in err and "[rule too_large]" in err and "max_snapshot_mb" in err and "1.0 MB" in err
    assert folder_state(data) == before and leftovers(data) == []


def test_a_synset_without_an_ili_yet_is_accepted(data: Path, tmp_path: Path) -> None:
    """``ili=""`` is WN-LMF's way to say "no ILI yet": present but empty, accepted (only a missing ``ili`` is not)."""
    lenient = tmp_path / "tiny-iwn.xml"
    lenient.write_text(_edit(IWN, 'ili="i92966"', 'ili=""'), encoding="utf-8")
    assert main(["lexicon", "use-wordnet", "--data", str(data), str(lenient)]) == 0
    assert "tiny-iwn:1.0" in lexicon_specifiers(data / "wordnet")


def test_a_refused_run_on_a_new_project_keeps_nothing_it_read_before_the_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``use-wordnet good-it.xml fake-en.xml``: exit 2 and good-it is not there either (no database at all)."""
    files = write_tiny_wordnet(tmp_path / "lmf")
    fake = tmp_path / "fake-en.xml"
    fake.write_text(english_lmf("fake-en", offset_ids=False), encoding="utf-8")
    data = tmp_path / "p"
    assert main(["init", "--data", str(data), "--languages", "IT"]) == 0
    assert main(["lexicon", "use-wordnet", "--data", str(data), str(files[1]), str(fake)]) == 2
    err = capsys.readouterr().err
    first_synset = line_of(english_lmf("fake-en", offset_ids=False), '<Synset id="fake-en-x')
    assert f"{fake}, line {first_synset}:" in err
    assert "[rule english_wordnet_30]" in err
    assert not (data / "wordnet" / "wn.db").exists() and lexicon_specifiers(data / "wordnet") == []
    assert leftovers(data) == [] and Project.open(data).settings().lexicon.provider == "snapshot"
    # two English lexicons in one run: the second is named
    second = tmp_path / "second-en.xml"
    second.write_text(english_lmf("tiny-en2"), encoding="utf-8")
    assert main(["lexicon", "use-wordnet", "--data", str(data), str(files[0]), str(second)]) == 2
    err = capsys.readouterr().err
    assert f"{second}, line 4:" in err and "[rule one_english_lexicon]" in err and "tiny-en:3.0" in err
    assert lexicon_specifiers(data / "wordnet") == []


# --- interruptions ----------------------------------------------------------------------------------------


def _run_until(data: Path, source: Path, point: str, how: signal.Signals | None) -> subprocess.Popen[str]:
    """A ``use-wordnet`` child stopped at ``point`` (the test hook), then sent ``how`` (None: left waiting there)."""
    env = {**os.environ, PAUSE_ENV: point, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-m", "annotator.cli", "lexicon", "use-wordnet", "--data", str(data), str(source)],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert child.stderr is not None
    seen = []
    for line in child.stderr:
        seen.append(line)
        if f"wordnet pause point: {point}" in line:
            break
    else:
        child.wait()
        pytest.fail(f"the run ended without reaching {point}: {''.join(seen)}")
    if how is not None:
        child.send_signal(how)
        child.wait(timeout=60)
    return child


def _usable(data: Path, expected: list[str]) -> None:
    """The database is sound, lists ``expected``, and pre-population works from it."""
    folder = data / "wordnet"
    with sqlite3.connect(folder / "wn.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert lexicon_specifiers(folder) == expected
    project = Project.open(data)
    items = data.parent / "items.jsonl"
    line = {"id": "fig1", "sentence": "He poured a shot of whiskey.", "target": "shot", "lemma": "shot",
            "pos": "NOUN", "synset": SHOT_DRINK}  # fmt: skip
    items.write_text(json.dumps(line) + "\n", encoding="utf-8")
    import_items(project, items)
    report = prepopulate(project)
    assert report.outcome == "clean", report.warnings
    with project.db.read() as conn:
        good = [c.text for c in project.repo.item_languages_of(conn, "fig1")["IT"].initial_good]
    assert good == ["bicchierino", "cicchetto"]


@pytest.mark.parametrize(
    ("how", "point"),
    [
        (signal.SIGTERM, "checked"),
        (signal.SIGTERM, "adding"),
        (signal.SIGHUP, "indexes-in-place"),
        (signal.SIGKILL, "checked"),
        (signal.SIGKILL, "adding"),
        (signal.SIGKILL, "indexes-in-place"),
    ],
)
def test_an_interrupted_run_leaves_the_previous_lexicon_intact_and_the_next_run_cleans_up(
    data: Path, iwn: Path, how: signal.Signals, point: str
) -> None:
    before = folder_state(data)
    child = _run_until(data, iwn, point, how)
    if how == signal.SIGKILL:
        assert child.returncode == -signal.SIGKILL and leftovers(data)  # no chance to clean: the next run does
    else:
        assert child.returncode == 130 and leftovers(data) == []  # ended like Ctrl-C, its scratch removed
    state = {name: content for name, content in folder_state(data).items() if "/" not in name}  # build-* aside
    extra = set(state) - set(before)  # at most a new lexicon's index, written before the database (an orphan)
    assert {k: v for k, v in state.items() if k in before} == before
    assert all(name.startswith("index-") for name in extra)
    _usable(data, BASE)
    (data / "wordnet" / "unpack-left-by-0.5").mkdir()  # what older versions left behind
    (data / "wordnet" / "wn.db").chmod(0o644)  # and their mode after an interruption
    assert main(["lexicon", "use-wordnet", "--data", str(data), str(iwn)]) == 0
    assert leftovers(data) == [] and lexicon_specifiers(data / "wordnet") == sorted([*BASE, "tiny-iwn:1.0"])
    folder = data / "wordnet"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in folder.iterdir() if p.is_file())
    assert "tiny-iwn" in WordnetLexicon(folder).languages()["IT"]


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_a_run_stopped_after_the_rename_has_added_everything(data: Path, iwn: Path, how: signal.Signals) -> None:
    """Past the one rename the new database is whole: stopped there, the lexicon is added and the run says so."""
    child = _run_until(data, iwn, "replaced", how)
    assert child.stderr is not None
    rest = child.stderr.read()
    if how == signal.SIGTERM:
        assert child.returncode == 130 and "tiny-iwn:1.0 added" in rest and "run the same command again" in rest
    else:
        assert leftovers(data)
    _usable(data, sorted([*BASE, "tiny-iwn:1.0"]))
    assert main(["lexicon", "use-wordnet", "--data", str(data), str(iwn)]) == 0
    assert leftovers(data) == []


# --- progress and re-adding -----------------------------------------------------------------------------


def test_progress_moves_within_one_file(tmp_path: Path) -> None:
    """A single file reports as it is read and as it is written, not once at its end."""
    english = write_tiny_wordnet(tmp_path / "lmf")[0]
    calls: list[tuple[int, int, str]] = []
    add_lexicons(tmp_path / "wordnet", [str(english)], lambda done, total, text: calls.append((done, total, text)))
    reading = [c for c in calls if "checking 1/1 tiny-en.xml" in c[2]]
    writing = [c for c in calls if c[2].startswith("writing tiny-en:3.0")]
    assert reading and len(writing) >= 10
    assert [done for done, _t, _m in writing] == sorted(done for done, _t, _m in writing)
    assert writing[-1][0] == writing[-1][1] > 0


def test_a_lost_index_is_written_again_without_touching_the_database(data: Path, base_project: tuple) -> None:
    folder = data / "wordnet"
    index = next(folder.glob("index-*tiny-it*"))
    index.unlink()
    database = (folder / "wn.db").read_bytes()
    assert main(["lexicon", "use-wordnet", "--data", str(data), str(base_project[1][1])]) == 0
    assert index.exists() and (folder / "wn.db").read_bytes() == database


FULL_DISK_SHELL = """
mount -t tmpfs -o size="$1" tmpfs "$2/wordnet" || exit 97
cp -a "$2/wordnet-before/." "$2/wordnet/" || exit 98
shift 2
exec "$@"
"""
FULL_DISK_CHECK = """
import sqlite3, sys
from pathlib import Path
from annotator.cli import main
from annotator.lexicon.wordnet import lexicon_specifiers
data, source = sys.argv[1], sys.argv[2]
print("exit", main(["lexicon", "use-wordnet", "--data", data, source]), flush=True)
folder = Path(data) / "wordnet"
with sqlite3.connect(f"file:{folder / 'wn.db'}?mode=ro", uri=True) as conn:
    print("integrity", conn.execute("PRAGMA integrity_check").fetchone()[0])
print("lexicons", " ".join(lexicon_specifiers(folder)))
print("left", " ".join(sorted(p.name for p in folder.iterdir() if p.name.startswith("build-"))) or "-")
"""


def test_a_full_disk_is_a_message_and_the_previous_lexicon_stays(data: Path, iwn: Path) -> None:
    """The wordnet folder on a real, nearly full disk (a small tmpfs in a private mount namespace): the copy cannot
    be written, so the run says so (exit 2, no traceback) and the database in place is untouched."""
    folder = data / "wordnet"
    used_kb = sum(p.stat().st_size for p in folder.iterdir() if p.is_file()) // 1024
    assert (folder / "wn.db").stat().st_size > 200 * 1024  # the copy needs that much again: it cannot fit
    folder.rename(data / "wordnet-before")
    folder.mkdir(mode=0o700)
    result = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", FULL_DISK_SHELL, "sh", f"{used_kb + 100}k",
         str(data), sys.executable, "-c", FULL_DISK_CHECK, str(data), str(iwn)],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "exit 2" in result.stdout and "Traceback" not in result.stderr
    assert "Cannot write the new wordnet database" in result.stderr and "Nothing was changed" in result.stderr
    assert "integrity ok" in result.stdout and f"lexicons {' '.join(BASE)}" in result.stdout
    assert "left -" in result.stdout


def test_one_run_at_a_time(data: Path, iwn: Path, base_project: tuple, capsys: pytest.CaptureFixture[str]) -> None:
    """A second run while one is building is refused (exit 2) and does not disturb the first one's scratch."""
    child = _run_until(data, iwn, "checked", None)  # waiting at its pause point, the lock taken
    try:
        building = leftovers(data)
        assert building
        assert main(["lexicon", "use-wordnet", "--data", str(data), str(base_project[1][1])]) == 2
        assert "Another 'annotator lexicon' command is changing the wordnet" in capsys.readouterr().err
        assert main(["lexicon", "remove-wordnet", "--data", str(data), "tiny-cmn"]) == 2
        assert leftovers(data) == building and lexicon_specifiers(data / "wordnet") == BASE
    finally:
        child.kill()
        child.wait()


@pytest.fixture
def web(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A local HTTP server over a folder: what ``use-wordnet URL`` downloads."""
    served = tmp_path / "served"
    served.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", served
    server.shutdown()


def test_a_downloaded_compression_bomb_is_refused_while_reading_never_unpacked_whole(
    data: Path, web: tuple[str, Path], tmp_path: Path
) -> None:
    """A URL (or wn package) used to be unpacked whole by ``wn`` into the system's temporary folder before any
    check: a small download could fill the disk. A compressed file is now read through the same bounded reader as
    a local one, and an archive whose members add up to more than the limit is refused before it is unpacked."""
    url, served = web
    limits = replace(InputLimits(), max_snapshot_mb=1)
    lines = IWN.split("\n", 2)
    big = f"{lines[0]}\n{lines[1]}\n<!-- {'x' * (3 << 20)} -->\n{lines[2]}".encode()  # 3 MB of text
    (served / "bomb.xml.gz").write_bytes(gzip.compress(big))
    folder = data / "wordnet"
    before = folder_state(data)
    with pytest.raises(WordnetFileError, match=r"its text is larger than 1\.0 MB") as refused:
        add_lexicons(folder, [f"{url}/bomb.xml.gz"], limits=limits)
    assert refused.value.rule == "too_large" and "tmp" not in str(refused.value)
    member = tarfile.TarInfo("pkg/bomb.xml")
    member.size = len(big)
    with tarfile.open(served / "pkg.tar.xz", "w:xz") as tar:
        tar.addfile(member, io.BytesIO(big))
    with pytest.raises(WordnetFileError, match=r"its files add up to more than 1\.0 MB") as refused:
        add_lexicons(folder, [f"{url}/pkg.tar.xz"], limits=limits)
    assert refused.value.rule == "too_large"
    assert folder_state(data) == before and leftovers(data) == []
    assert stat.S_IMODE((folder / "downloads").stat().st_mode) == 0o700  # wn's cache, owner-only like the rest
    (served / "tiny-iwn.xml.xz").write_bytes(lzma.compress(IWN.encode()))  # a genuine one still comes in
    assert [i.specifier for i in add_lexicons(folder, [f"{url}/tiny-iwn.xml.xz"], limits=limits)] == ["tiny-iwn:1.0"]
