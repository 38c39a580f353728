"""A hostile evaluation (look-alike and script-breaking text) for the report tests."""

from __future__ import annotations

import json
from pathlib import Path


def hostile_evaluation(folder: Path) -> Path:
    """metrics.json and analysed.jsonl as ``annotator evaluate`` writes them, for systems with hostile names."""
    names = (SCRIPT_BREAKER, *LOOK_ALIKES, "</script><b>&amp;\u2028")
    rows = [{**ROWS[2], "system": name} for name in names]
    records = [
        {"system": name, "id": f"i{k}", "lang": lang, "pos": "NOUN", "result": "GOOD", "synset": "bn:00000001n",
         "omega": "w", "omega_synsets": ["bn:00000001n"]}
        for name in names for lang in ("DE", "IT") for k in range(2)
    ]  # fmt: skip
    folder.mkdir()
    (folder / "metrics.json").write_text(json.dumps({"rows": rows}), encoding="utf-8")
    (folder / "analysed.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return folder


ROWS = [
    # Two languages for one system; IT has no BAD with provenance, so its MFS is n/a.
    {"system": "s", "lang": "DE", "pos": "ALL", "accuracy": {"percent": 50.0}, "miss_rate": {"percent": 10.0},
     "mfs": {"percent": 40.0}, "mfs_plus": {"percent": 80.0}, "sfii": {"percent": 30.0, "groups": []},
     "spdi": {"percent": 20.0, "groups": []}},
    {"system": "s", "lang": "IT", "pos": "ALL", "accuracy": {"percent": 70.0}, "miss_rate": {"percent": 30.0},
     "mfs": {"percent": None}, "mfs_plus": {"percent": None}, "sfii": {"percent": 10.0, "groups": []},
     "spdi": {"percent": 40.0, "groups": []}},
    {"system": "s", "lang": "ALL", "pos": "ALL", "accuracy": {"percent": 60.0}, "miss_rate": {"percent": 20.0},
     "mfs": {"percent": 40.0}, "mfs_plus": {"percent": 80.0},
     "sfii": {"percent": 25.0, "groups": [{"key": 1, "good": 3, "bad": 1}, {"key": 2, "good": 0, "bad": 0}]},
     "spdi": {"percent": 25.0, "groups": [{"key": 3, "good": 1, "bad": 1}]}},
    {"system": "s", "lang": "ALL", "pos": "NOUN", "accuracy": {"percent": 65.0}},
    {"system": "s", "lang": "ALL", "pos": "VERB", "accuracy": {"percent": 55.0}},
]  # fmt: skip


#: A name that would end the data script early (an HTML comment opened inside <script>), two names with one slug.
SCRIPT_BREAKER = "x<!--<script>"


LOOK_ALIKES = ("gpt 4", "gpt-4")
