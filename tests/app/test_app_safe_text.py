"""Untrusted text is shown as text: the escaping helpers the pages use for every item, file and user string."""

from __future__ import annotations

import re

from app_helpers import plain

from annotator.app.safe_text import code, html, md, synset_md, synset_url, visible_controls

PAYLOADS = [
    "**bold**",
    "![x](http://evil.example/x.png)",
    '<img src="http://evil.example/i.png">',
    "[link](http://evil.example/l)",
    ":red[x]",
    "$x$",
    "a``b",
    "# heading\n\n1. list\n> quote",
    "&#33;[e](http://evil.example/e.png)",
]


def test_markdown_escaping_keeps_the_text_and_disarms_every_construct() -> None:
    for payload in PAYLOADS:
        escaped = md(payload)
        assert plain(escaped) == payload  # nothing lost: the reader sees exactly the text
        # every Markdown/HTML/KaTeX/directive character is escaped, so no construct can start
        assert not re.search(r"(?<!\\)[\[\]()!<>*$`:#&]", escaped), escaped


def test_code_spans_survive_any_run_of_backticks() -> None:
    assert code("prendere * permesso") == "`prendere * permesso`"
    assert code("a``b") == "```a``b```"  # two backticks inside: a three-backtick fence
    assert code("`a``") == "``` `a`` ```"
    assert code("line\nbreak") == "`line break`"


def test_html_text_is_inert_as_html_and_as_markdown() -> None:
    shown = html("<img src=x onerror=alert(1)> ![i](http://evil.example/i.png) $x$\n\nnext")
    assert "<img" not in shown and "![" not in shown and "$" not in shown and "](" not in shown
    assert "&#60;img" in shown and "<br><br>next" in shown  # a blank line cannot end an HTML block


def test_only_well_formed_synsets_become_links() -> None:
    assert synset_md("bn:00057755n") == "[bn:00057755n](https://babelnet.org/synset?id=bn:00057755n)"
    for bad in ("http://evil.example/s", "bn:123", "bn:00057755n)](http://evil.example", "BN:00057755N"):
        assert synset_url(bad) is None
        assert synset_md(bad) == code(bad)  # shown as literal text in a code span, never a link


def test_bidi_and_invisible_controls_are_shown_not_obeyed() -> None:
    sentence = "He drank \u202eyksihw\u202c a shot\u200b."
    assert visible_controls(sentence) == "He drank <U+202E>yksihw<U+202C> a shot<U+200B>."
    for rendered in (md(sentence), html(sentence), code(sentence)):
        assert "\u202e" not in rendered and "\u200b" not in rendered


def test_streamlit_shortcodes_and_arrows_stay_as_typed() -> None:
    for text in ("a->b", ":smile:", ":material/home:", "x--y", "a>=b"):
        escaped = md(text)
        assert plain(escaped) == text
        assert text not in escaped.replace("\\", "")  # a word joiner sits inside the pattern Streamlit rewrites


def test_the_items_table_links_only_babelnet_ids_and_shows_controls(tmp_path) -> None:
    import hostile_project as hp

    from annotator.app.pages.items import item_rows

    rows = {row["item_id"]: row for row in item_rows(hp.build(tmp_path / "data"), ("IT",))}
    assert rows[hp.ITEM_B]["synset"] == hp.NON_BN_SYNSET and rows[hp.ITEM_B]["BabelNet"] is None
    assert rows[hp.ITEM_A]["BabelNet"] == "https://babelnet.org/synset?id=bn:00057755n"
    assert "\u202e" not in rows[hp.ITEM_A]["sentence"] and "<U+202E>yksihw" in rows[hp.ITEM_A]["sentence"]
