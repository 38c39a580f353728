"""Issue 32, acceptance 2: Python and the work area's script agree on the protocol, and the test fails when either
side changes a field.

* ``area.js`` carries a copy of ``protocol.schema()`` (the version, every event and its fields, every data field);
  it must equal Python's.
* Every data field the script reads (``d.card.sentence``, ``list.rows.map(({key, text, line, title}) …``) is in
  the schema; every event it sends is one of the schema's events with exactly its fields.
* The data the page really sends (a Curate run through AppTest) has exactly the schema's fields.
* A script or a schema changed by one field is caught by the same checks (run on altered copies).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from app_helpers import area
from curation_pages import TRANSLATOR, login, start

from annotator.app import curate_area
from annotator.app.curate_area import protocol

SCRIPT = (Path(protocol.__file__).parent / "assets" / "area.js").read_text(encoding="utf-8")
#: Array and string methods the script calls on a field: the walk through the schema stops there.
METHODS = {"map", "length", "for", "forEach", "slice", "trim", "includes"}


def roots(data: dict[str, Any]) -> dict[str, Any]:
    """The script's names for parts of the data (``d``/``data``/``next`` the whole, ``c`` the card, …)."""
    return {
        "d": data, "data": data, "next": data, "c": data["card"], "list": data["lists"]["good"],
        "feedback": data["feedback"], "check": data["check"], "state": data["actions"]["done"],
    }  # fmt: skip


def resolve(node: Any, names: list[str], where: str) -> tuple[Any, list[str]]:
    """Walk ``names`` down the schema from ``node``; the node reached, or the problem."""
    for index, name in enumerate(names):
        if name in METHODS and (isinstance(node, list) or node in ("str", "any") or index):
            return node, []
        if isinstance(node, list):
            node = node[0]
        if not isinstance(node, dict) or name not in node:
            return None, [f"{where}: the script reads {'.'.join(names)!r}, which the schema does not have"]
        node = node[name]
    return node, []


def script_mismatches(script: str, schema: dict[str, Any]) -> list[str]:
    """Every way ``script`` and ``schema`` disagree (empty when they agree)."""
    problems = []
    try:
        if protocol.embedded(script) != schema:
            problems.append("the script's protocol block is not Python's schema (regenerate it)")
    except ValueError as error:
        problems.append(str(error))
    body = script[script.index(protocol.END) :]  # the script's own code, after its copy of the schema
    data, events, optional = schema["data"], schema["events"], schema["optional"]
    names = roots(data)
    for match in re.finditer(r"\b(d|data|next|c|list|feedback|check|state)((?:\.[a-z_]+)+)", body):
        _node, found = resolve(names[match.group(1)], match.group(2)[1:].split("."), match.group(0))
        problems += found
    for match in re.finditer(r"\b(d|c|list)((?:\.[a-z_]+)+)\.(?:map|forEach)\(\(\{([a-z_, ]+)\}", body):
        node, found = resolve(names[match.group(1)], match.group(2)[1:].split("."), match.group(0))
        problems += found
        element = node[0] if isinstance(node, list) else {}
        for name in (n.strip() for n in match.group(3).split(",")):
            if name not in element:
                problems.append(f"{match.group(0)}: the rows have no field {name!r}")
    sent: set[str] = set()
    for match in re.finditer(r"enqueue\('([a-z_]+)', \{([^}]*)\}", body):
        kind = match.group(1)
        fields = {part.split(":")[0].strip() for part in match.group(2).split(",") if part.strip()}
        sent.add(kind)
        if kind not in events:
            problems.append(f"the script sends {kind!r}, which the schema does not have")
            continue
        required = set(events[kind]) - set(optional.get(kind, ()))
        if not required <= fields <= set(events[kind]):
            problems.append(f"the script sends {kind!r} with {sorted(fields)}, the schema says {events[kind]}")
    row = re.search(r"const rowFields = \(row\) => \(\{(.*)\}\);", body)
    row_fields = {name for name in re.findall(r"(?:^|, )([a-z_]+):", row.group(1))} if row else set()
    for kind in ("move", "remove"):
        sent.add(kind)
        if kind not in events or row_fields != set(events[kind]):
            problems.append(f"a row's {kind} sends {sorted(row_fields)}, the schema says {events.get(kind)}")
    plain = re.search(r"((?:case '[a-z]+':\s*)+)if \(button && !button\.disabled\) enqueue\(name, \{\}", body)
    for kind in re.findall(r"case '([a-z]+)':", plain.group(1) if plain else ""):
        sent.add(kind)
        if events.get(kind) != []:
            problems.append(f"the script sends {kind!r} without fields, the schema says {events.get(kind)}")
    if "enqueue('advance', {on:" in body:
        sent.add("advance")
    missing = set(events) - sent
    if missing:
        problems.append(f"events of the schema the script never sends: {sorted(missing)}")
    if "protocol: PROTOCOL.version" not in body:
        problems.append("the script does not send its protocol version")
    return problems


def data_mismatches(value: Any, schema: Any, path: str = "data") -> list[str]:
    """Every field of ``value`` (what the page sent) not in ``schema``, or in it and missing (None/absent allowed
    for objects the page leaves out, such as no feedback yet)."""
    if value is None or schema == "any":
        return []
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            return [f"{path}: not an object"]
        problems = [f"{path}.{k}: sent but not in the schema" for k in value if k not in schema]
        for key, inner in schema.items():
            if key not in value:
                optional_object = isinstance(inner, dict) and path == "data" and key in ("check", "feedback")
                if not optional_object and not (path.endswith("feedback") or path.endswith("check")):
                    problems.append(f"{path}.{key}: in the schema but not sent")
                continue
            problems += data_mismatches(value[key], inner, f"{path}.{key}")
        return problems
    if isinstance(schema, list):
        if not isinstance(value, list):
            return [f"{path}: not a list"]
        return [p for index, item in enumerate(value) for p in data_mismatches(item, schema[0], f"{path}[{index}]")]
    kinds = {"str": str, "int": int, "bool": bool}
    return [] if isinstance(value, kinds[schema]) else [f"{path}: {value!r} is not {schema}"]


def test_the_script_carries_and_follows_pythons_schema() -> None:
    assert script_mismatches(SCRIPT, protocol.schema()) == []
    assert protocol.embedded(SCRIPT)["version"] == protocol.VERSION


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("c.sentence", "c.sentense"),  # the script reads a field Python does not send
        ("({key, text, line, title}, index)", "({key, text, line, tip}, index)"),  # a row field renamed
        ("enqueue('add', {side, text})", "enqueue('add', {side, words: text})"),  # an event field renamed
        ("side: row.dataset.side, ", ""),  # a row event loses a field
    ],
)
def test_a_script_changed_by_one_field_is_caught(old: str, new: str) -> None:
    assert old in SCRIPT
    assert script_mismatches(SCRIPT.replace(old, new), protocol.schema())


def test_a_schema_changed_by_one_field_is_caught() -> None:
    schema = protocol.schema()
    schema["events"]["discuss"] = ["note"]  # Python renames an event's field
    assert script_mismatches(SCRIPT, schema)
    schema = protocol.schema()
    del schema["data"]["card"]["gloss"]  # Python stops sending a field the script reads
    assert any("c.gloss" in p for p in script_mismatches(SCRIPT, schema))


def test_the_data_the_page_sends_is_the_schemas(demo) -> None:  # type: ignore[no-untyped-def]
    at = login(start(), TRANSLATOR)
    sent = area(at)
    assert sent["protocol"] == protocol.VERSION
    assert data_mismatches(sent, protocol.DATA) == []
    changed = {**sent, "card": {**sent["card"], "sentense": sent["card"]["sentence"]}}
    assert data_mismatches(changed, protocol.DATA)  # a field Python adds without the schema is caught


def test_the_package_declares_the_elements_asset_folder() -> None:
    """The manifest Streamlit reads (``annotator/pyproject.toml``, next to the installed code) names the element as
    ``curate_area`` declares it, its asset folder holds the script, and the package ships the manifest."""
    package = Path(curate_area.__file__).parent.parent.parent
    manifest = tomllib.loads((package / "pyproject.toml").read_text(encoding="utf-8"))
    (component,) = manifest["tool"]["streamlit"]["component"]["components"]
    assert f"{manifest['project']['name']}.{component['name']}" == curate_area.COMPONENT_NAME
    assert (package / component["asset_dir"]).resolve() == Path(curate_area.__file__).parent.resolve() / "assets"
    assert sorted(p.name for p in (package / component["asset_dir"]).iterdir()) == ["area.css", "area.html", "area.js"]
    assert (package / component["asset_dir"] / "area.js").is_file()
    project = tomllib.loads((package.parent / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["name"] == manifest["project"]["name"]
    assert "pyproject.toml" in project["tool"]["setuptools"]["package-data"]["annotator"]


def test_in_a_running_app_the_script_is_a_file_and_the_data_one_json_document(tmp_path: Path) -> None:
    """Imported by a running app (as ``annotator serve`` does), the element's message names ``area.js`` instead of
    carrying it (the style stays inline), and its data is the JSON document ``curate_area.encode`` makes. (In a
    fresh interpreter: this one imported the module outside any app, where the element has its script inline.)"""
    data = {"protocol": protocol.VERSION, "item": "ïtem <b>", "card": {"title": "«x»"}}
    app = tmp_path / "app.py"
    app.write_text(f"from annotator.app import curate_area\ncurate_area.render({data!r}, lambda: None)\n")
    probe = (
        "import json\nfrom streamlit.testing.v1 import AppTest\n"
        f"at = AppTest.from_file({str(app)!r}).run()\n"
        "assert not at.exception, at.exception\n"
        "p = at.get('bidi_component')[0].proto\n"
        "print(json.dumps([p.component_name, p.js_source_path, p.css_source_path, p.js_content, p.css_content.strip(),"
        " p.html_content.strip(), p.bytes.decode('utf-8')]))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    name, js_path, css_path, js, css, html, sent = json.loads(done.stdout.strip().splitlines()[-1])
    assert (name, js_path, js) == (curate_area.COMPONENT_NAME, "area.js", "")
    assert (css_path, css, html) == ("", curate_area.CSS.strip(), curate_area.HTML.strip())
    assert json.loads(sent) == data and sent.encode("utf-8") == curate_area.encode(data)


def test_text_without_a_utf8_form_still_reaches_the_element() -> None:
    """A lone surrogate (a forged or pasted ``\\ud800`` the check echoes back) has no UTF-8 form: the document goes
    with its non-ASCII characters escaped, and says the same, rather than failing every run of the page."""
    data = {"protocol": protocol.VERSION, "check": {"text": "a\ud800b"}, "card": {"title": "Schuß 射击"}}
    sent = curate_area.encode(data)
    assert json.loads(sent.decode("ascii")) == data
    plain = {"card": {"title": "Schuß 射击"}}
    assert curate_area.encode(plain) == json.dumps(plain, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
