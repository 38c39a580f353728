"""Untrusted text shown as text: the one place that escapes what items, files and users supply.

Streamlit renders Markdown (with images, links, KaTeX and ``:color[…]`` directives) in ``st.markdown``,
captions, alerts, toasts, tooltips and every widget label, so an item id like ``![x](http://host/x.png)``
would make each viewer's browser fetch from that host. Every string that did not come from our own code goes
through ``md`` (Markdown contexts), ``code`` (a code span), ``html`` (inside ``unsafe_allow_html`` markup) or
``synset_md``; bidi and other invisible controls are shown as visible ``<U+202E>`` marks so a sentence
cannot display reversed.
"""

from __future__ import annotations

import html as _html
import re
import string
from urllib.parse import quote

#: A BabelNet synset id; only these become links.
SYNSET = re.compile(r"^bn:\d{8}[nvar]$")

#: Characters that reorder or hide text when displayed: bidi embeddings, overrides, isolates and marks,
#: zero-width and other format characters, the BOM, tag characters and C0/C1 controls other than tab/newline.
_INVISIBLE = re.compile(
    "[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)
#: Every ASCII punctuation character may be backslash-escaped in CommonMark; escaping all of them disarms
#: emphasis, links, images, code, HTML, KaTeX ``$``, directives ``:x[…]``, headings, lists and tables at once.
_MD_ESCAPE = {ord(ch): "\\" + ch for ch in string.punctuation}
#: Inside HTML markup Markdown is still parsed; numeric character references are literal characters to it.
_HTML_ESCAPE = {ord(ch): f"&#{ord(ch)};" for ch in string.punctuation}
#: GFM turns bare URLs, ``www.`` names and e-mail addresses into links by rewriting *text* after parsing, so no
#: escape stops it; an invisible WORD JOINER (U+2060) inside the pattern does.
_AUTOLINK = re.compile(r"(?i)(\b(?:https?|ftp|mailto|xmpp):|\bwww(?=\.)|@)")
#: Streamlit also rewrites text for emoji and icon shortcodes (``:smile:``, ``:material/x:``) and typographic
#: arrows (``->``, ``--``, ``>=``); a word joiner after the first character keeps them as typed.
_SHORTCODE = re.compile(r"(:(?=[\w+/-]+:)|[-<>~](?=[-<>=]))")
WORD_JOINER = "\u2060"


def visible_controls(text: str) -> str:
    """Invisible and bidi control characters as visible marks such as ``<U+202E>`` (the rest unchanged)."""
    return _INVISIBLE.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


def md(text: object) -> str:
    """``text`` for any Markdown context (markdown, caption, alerts, toasts, help, widget labels), shown literally.

    Newlines are kept as line breaks; everything else that Markdown or Streamlit's extensions could interpret
    is backslash-escaped, and bare URLs get an invisible word joiner so that GFM does not make them links.
    """
    shown = visible_controls(str(text)).replace("\r\n", "\n").replace("\r", "\n")
    shown = _SHORTCODE.sub(lambda m: m.group(1) + WORD_JOINER, _AUTOLINK.sub(lambda m: m.group(1) + WORD_JOINER, shown))
    lines = [line.translate(_MD_ESCAPE) for line in shown.split("\n")]
    return "  \n".join(lines)


def code(text: object) -> str:
    """``text`` as an inline code span that survives any run of backticks inside it (CommonMark §6.1).

    Backslash escapes do not work inside a code span, so the fence is one backtick longer than the longest run
    inside, padded with a space when the text starts or ends with a backtick. Newlines become spaces.
    """
    shown = visible_controls(str(text)).replace("\r", " ").replace("\n", " ")
    if not shown:
        return "` `"
    runs = [len(run) for run in re.findall(r"`+", shown)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") or (shown.startswith(" ") and shown.endswith(" ")) else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def html(text: object) -> str:
    """``text`` for use inside ``unsafe_allow_html`` markup: HTML-escaped and Markdown-inert, newlines as ``<br>``."""
    shown = _AUTOLINK.sub(lambda m: m.group(1) + WORD_JOINER, visible_controls(str(text)))
    escaped = shown.translate(_HTML_ESCAPE)  # & < > " ' and every Markdown character become references
    return escaped.replace("\r\n", "\n").replace("\n", "<br>")


def attribute(text: object) -> str:
    """``text`` inside a quoted HTML attribute (e.g. ``title``)."""
    return _html.escape(visible_controls(str(text)), quote=True)


def is_synset(text: str) -> bool:
    return bool(SYNSET.match(text))


def synset_url(synset: str) -> str | None:
    """The BabelNet page of a well-formed synset id; None for anything else (never a link to it)."""
    return f"https://babelnet.org/synset?id={quote(synset, safe=':')}" if is_synset(synset) else None


def synset_md(synset: str) -> str:
    """A BabelNet link for a well-formed synset id, any other text as a code span."""
    url = synset_url(synset)
    return f"[{synset}]({url})" if url else code(synset)
