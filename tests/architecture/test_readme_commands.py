"""The README's commands work as written from a fresh clone's root: every ``pip install`` of the package pins the
tested versions (``-c constraints.txt``), the folders they make are ignored by git, and the open-data commands name
their files by a path from the repository's root (bare names worked only from inside the data folder)."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```bash\n(.*?)```", README, re.S)
#: Files the open data holds (``../shared/data`` beside the repository: its wordnets and the WSD benchmark).
OPEN_DATA = re.compile(r"\.(xml\.xz|xml\.gz|data\.xml)$")


def commands() -> list[list[str]]:
    """Each command line of the README's bash blocks as words (continuations joined, comments dropped)."""
    found = []
    for block in BLOCKS:
        for line in block.replace("\\\n", " ").splitlines():
            for part in line.split("&&"):
                words = shlex.split(part, comments=True)
                if words:
                    found.append(words)
    return found


def test_every_pip_install_of_the_package_uses_the_constraints() -> None:
    installs = [words for words in commands() if words[:2] == ["pip", "install"] and "-e" in words]
    assert len(installs) >= 2, installs  # the first-day command and the wordnet extra at least
    for words in installs:
        assert "-c" in words and words[words.index("-c") + 1] == "constraints.txt", words


def test_the_folders_the_readme_makes_are_ignored_by_git() -> None:
    made = {words[words.index("--data") + 1] for words in commands() if "--data" in words}
    made = {folder for folder in made if "/" not in folder and not folder.startswith("$")}
    assert {"demo-data", "myproject"} <= made, made
    for folder in sorted(made | {".venv"}):
        ignored = subprocess.run(
            ["git", "check-ignore", "--no-index", "-q", f"{folder}/x"], cwd=ROOT, check=False
        ).returncode
        assert ignored == 0, f"{folder}/ is not in .gitignore"


def test_the_open_data_commands_name_files_by_a_path_from_the_repository_root() -> None:
    variables = {}
    files = []
    for words in commands():
        if len(words) == 1 and "=" in words[0]:
            name, value = words[0].split("=", 1)
            variables[name] = value
            continue
        for word in words:
            for name, value in variables.items():
                word = word.replace(f"${name}", value)
            if OPEN_DATA.search(word) and word != "ALL.data.xml":  # ALL.data.xml: the user's own download
                files.append(word)
    assert len(files) >= 7, files  # six wordnets and the benchmark
    assert all(word.startswith("../shared/data/") for word in files), files
