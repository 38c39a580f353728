"""Python and the work area's script agree on one protocol, typed on the Python side and checked on both.

* The JSON Schema is generated from the protocol's types; the committed ``schema.json`` and the copy ``area.js``
  carries both equal it (regenerate: ``python -m annotator.app.curate_area.schema``).
* The data a page really sends (a Curate run through AppTest), and ``area_data`` called on its own, are valid under
  the schema (checked by ``jsonschema``, independent of our generator); a field added or mistyped is caught.
* Every event kind parses into its dataclass and is valid under the schema; a forged or malformed event is refused,
  naming the field and the rule, and the schema refuses it too.
(The script's own check of the data against the schema runs in Chromium: ``test_e2e_work_area_schema.py``.)
"""

from __future__ import annotations

import copy
import dataclasses
import json
import subprocess
import sys
import tomllib
import typing
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from app_helpers import area
from curation_pages import ITEM, LANG, TRANSLATOR, login, start

from annotator.app import curate_area
from annotator.app.area_data import CardReads, Dismissed, Place, Remembered, area_data
from annotator.app.curate_area import protocol, schema
from annotator.domain.commands import Address
from annotator.domain.model import DiscardReason, Side
from annotator.project import Project
from annotator.services.curation import CurationService

SCRIPT = (Path(protocol.__file__).parent / "assets" / "area.js").read_text(encoding="utf-8")


def validator(definition: str = "AreaData") -> jsonschema.Draft202012Validator:
    """A validator of the generated schema for one of its definitions (the data, or ``Event``)."""
    whole = {**schema.json_schema(), "$ref": f"#/$defs/{definition}"}
    return jsonschema.Draft202012Validator(whole)


def faults(value: object, definition: str = "AreaData") -> list[str]:
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator(definition).iter_errors(value)]


def test_the_committed_schema_and_the_scripts_copy_are_the_generated_one() -> None:
    generated = schema.json_schema()
    jsonschema.Draft202012Validator.check_schema(generated)  # a JSON Schema, by the standard's own meta-schema
    assert schema.SCHEMA_FILE.read_text(encoding="utf-8") == schema.schema_text()
    assert schema.embedded(SCRIPT) == generated
    assert generated["version"] == protocol.VERSION
    assert generated["$defs"]["AreaData"]["properties"]["protocol"] == {"const": protocol.VERSION}


def test_the_schema_follows_the_types() -> None:
    """Each TypedDict's fields are its definition's properties, the required ones required; each event kind's
    dataclass fields (beyond ``type`` and ``protocol``) are its event's, those with a default optional."""
    defs = schema.json_schema()["$defs"]
    for name, definition in defs.items():
        kind = getattr(protocol, name, None)  # (``Event``: the union of the event kinds, no type of its own)
        if typing.is_typeddict(kind):
            assert list(definition["properties"]) == list(typing.get_type_hints(kind)), name
            assert definition["required"] == sorted(kind.__required_keys__), name
            assert definition["additionalProperties"] is False
    assert defs["Feedback"]["required"] == ["focus", "id", "kind", "text", "where"]  # clear, close, scope: optional
    for kind, cls in protocol.EVENTS.items():
        definition = defs[cls.__name__]
        fields = dataclasses.fields(cls)
        assert list(definition["properties"]) == ["type", "protocol", *(f.name for f in fields)]
        assert definition["properties"]["type"] == {"const": kind}
        optional = {f.name for f in fields if f.default is not dataclasses.MISSING}
        assert set(definition["required"]) == set(definition["properties"]) - optional
    assert set(defs["RemoveEvent"]["required"]) == {"type", "protocol", "item", "lang", "version", "seq", "key"}
    assert [ref["$ref"].rsplit("/", 1)[1] for ref in defs["Event"]["oneOf"]] == [
        cls.__name__ for cls in protocol.EVENTS.values()
    ]


def test_the_data_the_page_sends_is_valid_under_the_schema(demo) -> None:  # type: ignore[no-untyped-def]
    sent = area(login(start(), TRANSLATOR))
    assert sent["protocol"] == protocol.VERSION
    assert faults(sent) == []
    added = {**sent, "card": {**sent["card"], "sentense": sent["card"]["sentence"]}}
    assert any("sentense" in fault for fault in faults(added))  # a field Python adds without the protocol
    mistyped = copy.deepcopy(sent)
    mistyped["lists"]["good"]["rows"][0]["key"] = 7
    assert any(fault.startswith("lists.good.rows.0.key") for fault in faults(mistyped))
    older = {**sent, "protocol": protocol.VERSION - 1}
    assert any(fault.startswith("protocol") for fault in faults(older))


def test_area_data_is_a_pure_function_of_its_inputs(demo: Path) -> None:
    """Called outside any Streamlit run (no session at all): what the session remembers and what the card's
    suggestions read are its arguments, and the same arguments give the same document."""
    project = Project.open(demo)
    with project.db.read() as conn:
        user = project.repo.get_user(conn, TRANSLATOR[0])
    assert user is not None
    view = CurationService(project, user).view(ITEM, LANG)
    place = Place(Address(ITEM, LANG), "cur|x|", {"position": "1 of 1", "progress": "", "previous": False,
                                                  "next": False, "advance_key": "ignored"})  # fmt: skip
    feedback: protocol.Feedback = {"id": "1", "kind": "success", "text": "Added.", "where": "good", "focus": "cursor"}
    remembered = Remembered(login="tag", advance=True, feedback=feedback, ack="seq:1",
                            dismissed=Dismissed(ITEM, LANG, "sorso"))  # fmt: skip
    first = area_data(view, user, place, remembered, CardReads())
    assert first == area_data(view, user, place, remembered, CardReads())  # nothing taken from anywhere else
    assert faults(first) == []
    assert (first["login"], first["advance"], first["feedback"], first["ack"]) == ("tag", True, feedback, "seq:1")
    assert first["nav"] == {"position": "1 of 1", "progress": "", "previous": False, "next": False}
    assert "sorso" in first["actions"]["undo"]["tip"]  # u brings the dismissed suggestion back
    assert first["suggestions"]["rows"] == [] and first["card"]["mt"] == []
    miss = area_data(view, user, place, Remembered(), CardReads(None, (("sys-a", "a translation"),)))
    assert miss["card"]["mt"] == []  # MISS lines come with the suggestions that found them
    plain = area_data(view, user, place, Remembered(), CardReads())
    assert (plain["login"], plain["feedback"], plain["check"], plain["advance"]) == ("local", None, None, False)


def envelope(kind: str) -> dict[str, Any]:
    return {"type": kind, "protocol": protocol.VERSION, "item": "i", "lang": "IT", "version": 3, "seq": "n:1"}


#: A well-formed event of each kind, as the script sends it.
SAMPLES: dict[str, dict[str, Any]] = {
    "add": {"side": "good", "text": "sorso"},
    "add_many": {"side": "bad", "text": "a\nb"},
    "remove": {"key": "k"},
    "move": {"key": "k", "side": "good", "text": "sorso"},
    "done": {},
    "discuss": {"text": "a note"},
    "discard": {"reason": "", "text": ""},
    "reopen": {},
    "undo": {},
    "next": {},
    "previous": {},
    "comment": {"text": "hello"},
    "check": {"side": "good", "text": "sor"},
    "advance": {"on": True},
    "accept": {"side": "bad", "text": "colpo"},
    "dismiss": {"side": "good", "text": "colpo"},
}


def test_every_event_kind_parses_into_its_dataclass_and_is_valid_under_the_schema() -> None:
    assert set(SAMPLES) == set(protocol.EVENTS)
    for kind, fields in SAMPLES.items():
        sent = {**envelope(kind), **fields}
        event = protocol.parse_event(sent)
        assert type(event) is protocol.EVENTS[kind] and (event.item, event.version, event.seq) == ("i", 3, "n:1")
        assert faults(sent, "Event") == [], kind
    assert protocol.parse_event({**envelope("move"), "key": "k", "side": "bad"}) == protocol.MoveEvent(
        "i", "IT", 3, "n:1", "k", Side.BAD, ""
    )
    assert protocol.parse_event({**envelope("discard"), "reason": "idiom", "text": ""}) == protocol.DiscardEvent(
        "i", "IT", 3, "n:1", DiscardReason.IDIOM, ""
    )


@pytest.mark.parametrize(
    ("sent", "said"),
    [
        ({**envelope("delete_all"), "key": "k"}, "unknown event type 'delete_all'"),
        ({**envelope("done"), "protocol": 4}, "protocol 4, this server speaks"),
        ({**envelope("remove")}, "field 'key' is missing"),
        ({**envelope("remove"), "key": 3}, "field 'key': must be text"),
        ({**envelope("remove"), "key": "k", "version": "3"}, "field 'version': must be a whole number"),
        ({**envelope("remove"), "key": "k", "version": True}, "field 'version': must be a whole number"),
        ({**envelope("add"), "side": "middle", "text": "x"}, "field 'side': must be one of ['good', 'bad']"),
        ({**envelope("add"), "side": "good", "text": ["x"]}, "field 'text': must be text"),
        ({**envelope("discard"), "reason": "bored", "text": ""}, "field 'reason': must be one of"),
        ({**envelope("advance"), "on": "yes"}, "field 'on': must be true or false"),
        ({**envelope("done"), "seq": 7}, "field 'seq': must be text"),
        ({**envelope("done"), "side": "good"}, "unknown fields ['side']"),
        ({**envelope("comment"), "text": "x" * (protocol.MAX_EVENT_TEXT + 1)}, "longer than"),
        ("remove", "an event is an object, not str"),
    ],
)
def test_a_forged_or_malformed_event_is_refused_naming_the_rule(sent: object, said: str) -> None:
    with pytest.raises(protocol.EventRefused, match=None) as refused:
        protocol.parse_event(sent)
    assert said in str(refused.value)
    if "longer than" not in said:  # (the schema sets no length: the parser's own limit)
        assert faults(sent, "Event")  # the schema refuses it too


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
