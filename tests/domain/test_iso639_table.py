"""The table of two-letter codes (``iso639_1``) is exactly what the language registry accepts, with the names it
gives them, and checking or showing the usual codes never loads the registry."""

from __future__ import annotations

import subprocess
import sys
from itertools import product
from string import ascii_lowercase

from annotator.domain.iso639_1 import ENGLISH_NAMES, PROJECT_CODES
from annotator.domain.languages import language_label, parse_language_list, registered, registry_name


def test_the_table_holds_exactly_the_two_letter_codes_the_registry_accepts() -> None:
    accepted = {a + b for a, b in product(ascii_lowercase, repeat=2) if registered(a + b)}
    assert accepted == PROJECT_CODES
    assert {"de", "es", "it", "ru", "zh", "he"} <= PROJECT_CODES
    assert not {"iw", "in", "sh", "cn", "jp", "zz", "qa"} & PROJECT_CODES  # retired, countries, unknown, private


def test_the_table_names_each_code_as_the_registry_does() -> None:
    assert {code: registry_name(code) for code in PROJECT_CODES} == ENGLISH_NAMES
    assert language_label("de") == "DE — German"
    assert language_label("yue") == "YUE — Cantonese"  # outside the table: the registry names it


def test_usual_codes_are_checked_and_shown_without_loading_the_registry_and_others_still_with_it() -> None:
    script = (
        "import sys\n"
        "from annotator.domain.languages import language_label, parse_language_list\n"
        "print(parse_language_list('de, ES,it,RU,zh'), language_label('zh'), 'langcodes' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split()[-1] == "False"
    assert "('DE', 'ES', 'IT', 'RU', 'ZH') ZH — Chinese" in done.stdout
    assert parse_language_list("yue,it") == ("YUE", "IT")  # three letters: the registry says
