"""One way to write a file: no module of ``annotator/`` opens a file for writing except through the atomic writer
(``annotator/atomic_files.py``), or at one of the places listed below with the reason it may.

The scan reads the syntax tree of every module (``write_scan.py``); a new ``open(path, "w")``, ``path.write_text``,
``os.open(..., O_WRONLY)`` … anywhere else fails ``test_annotator_writes_only_through_the_atomic_writer``, and an
entry below that no longer matches anything fails too (so the list never keeps a stale excuse).
"""

from __future__ import annotations

from pathlib import Path

from write_scan import raw_writes

PACKAGE = Path(__file__).resolve().parents[2] / "annotator"
#: The writer itself: the atomic writer and the private-mode primitives it is built on.
WRITERS = {"annotator/atomic_files.py", "annotator/private_files.py"}

#: "module:function" -> why a raw write is right there. Everything else goes through ``atomic_files``.
ALLOWED = {
    # Inside a folder the atomic writer made (``AtomicFolder``): the folder is renamed into place when complete.
    "annotator/data_export/dataset.py:_HashingWriter.__init__": "a file inside the export's AtomicFolder",
    "annotator/data_export/dataset.py:_write_document": "a file inside the export's AtomicFolder",
    "annotator/data_export/parquet_files.py:_BatchedWriter.__init__": "Parquet inside the publish AtomicFolder",
    "annotator/data_export/parquet_files.py:_BatchedWriter.flush": "Parquet inside the publish AtomicFolder",
    "annotator/data_export/parquet_files.py:_BatchedWriter.close": "Parquet inside the publish AtomicFolder",
    "annotator/data_export/publish.py:_write_licences": "LICENSES/ inside the publish AtomicFolder",
    "annotator/data_export/publish.py:_fill": "card and Croissant inside the publish AtomicFolder",
    # Into a temporary ``atomic_file`` yielded (its path is the writer's own private temporary).
    "annotator/data_export/spreadsheet.py:export_sheet": "openpyxl saves into atomic_file's temporary",
    "annotator/lexicon/wordnet_relations.py:RelationIndex.write": "gzip into atomic_file's temporary",
    # In memory: nothing reaches a file.
    "annotator/data_export/spreadsheet.py:sheet_bytes": "openpyxl saves into a BytesIO (a download)",
    "annotator/services/job_files.py:zip_bytes": "a member of a ZIP built in a BytesIO (a download)",
    # Inside the wordnet's build folder, renamed in whole by wordnet_store (all or nothing, swept when left).
    "annotator/lexicon/wordnet_index.py:LexiconIndex.write": "an index in the wordnet build folder",
    "annotator/lexicon/wordnet_lmf.py:check_file": "the checked copy in the wordnet build folder",
    "annotator/lexicon/wordnet_store.py:_copy_database": "the database copy in the wordnet build folder",
    # Not files: the priority of the process that writes the dictionary copy (atomically, itself), its stdout.
    "annotator/analysis/dictionary_cache.py:_lowest_priority": "/proc/PID/autogroup, the writer's priority",
    "annotator/analysis/dictionary_cache.py:write_copy_main": "/dev/null as the reader's stdout once it is done",
    "annotator/second_process.py:SecondProcess._run_child": "the pipe a forked child sends its values through",
    # Files that are not outputs: created empty (O_EXCL, 0600) for a database or a lock to open.
    "annotator/lexicon/wordnet_store.py:_exclusive": "the wordnet folder's lock file, created empty",
    "annotator/lexicon/http_cache.py:HttpCache.__init__": "the BabelNet cache database, created empty",
    "annotator/store/database.py:Database.__init__": "the project database, created empty",
    # A job's log, appended to by the worker process while it runs (a rename cannot append), 0600 in DATA/jobs.
    "annotator/services/jobs/control.py:launch_worker": "the job log the worker appends to",
    "annotator/services/jobs/control.py:save_upload": "an upload kept under a new unique name in DATA/jobs",
    # A developer's tool rewriting a tracked source file of the package.
}


def _scan() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE.parent).as_posix()
        if module in WRITERS:
            continue
        for finding in raw_writes(path.read_text(encoding="utf-8")):
            found.setdefault(f"{module}:{finding.function}", []).append(f"line {finding.line}: {finding.call}(…)")
    return found


def test_annotator_writes_only_through_the_atomic_writer() -> None:
    found = _scan()
    unexplained = {key: lines for key, lines in found.items() if key not in ALLOWED}
    assert not unexplained, (
        "files written without annotator.atomic_files (use atomic_file / open_atomic / write_text_atomic / "
        f"AtomicFolder): {unexplained}"
    )
    stale = sorted(set(ALLOWED) - set(found))
    assert not stale, f"entries of ALLOWED that match no write any more (remove them): {stale}"


def test_the_scan_catches_a_plain_open_for_writing_and_its_relatives() -> None:
    source = """
import os
from pathlib import Path

def write_out(path, text):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)

class Report:
    def save(self, out: Path) -> None:
        out.with_suffix(".part").open(mode="a").write("x")
        Path(out).write_text("x")
        os.open(out, os.O_WRONLY | os.O_CREAT, 0o644)
        open(out,
             "x+b")

def read_only(path):
    "open(path, 'w') in a string is no write"
    with open(path) as a, open(path, "rb") as b, Path(path).open(encoding="utf-8") as c:  # open(path, "w")
        os.open(path, os.O_RDONLY)
        return a.read() + str(b.read()) + c.read() + "".join({"a": 1}.copy())
"""
    found = raw_writes(source)
    assert [(f.function, f.line, f.call) for f in found] == [
        ("write_out", 6, "open"),
        ("Report.save", 11, "out.with_suffix('.part').open"),
        ("Report.save", 12, "Path(out).write_text"),
        ("Report.save", 13, "os.open"),
        ("Report.save", 14, "open"),
    ]


def test_a_plain_open_added_to_a_module_fails_the_scan(tmp_path: Path) -> None:
    """What the package test sees when someone adds ``open(path, "w")`` to a real module: a finding it does not
    allow (here on a copy of the suggestions service, whose ``--out`` writer once did exactly that)."""
    module = PACKAGE / "services" / "suggestions" / "bulk.py"
    source = module.read_text(encoding="utf-8")
    assert raw_writes(source) == []
    patched = source + '\n\ndef dump_out(out, text):\n    with open(out, "w") as handle:\n        handle.write(text)\n'
    findings = raw_writes(patched)
    assert [(f.function, f.call) for f in findings] == [("dump_out", "open")]
    assert "annotator/services/suggestions/bulk.py:dump_out" not in ALLOWED
