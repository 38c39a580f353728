"""Pure helpers of the app's widgets."""

from __future__ import annotations

from annotator.app.components import sentence_html_from_entry
from annotator.domain.model import Status
from annotator.store.repository import QueueEntry


def test_list_rows_highlight_the_target_at_its_offsets_not_its_first_occurrence() -> None:
    sentence = "The head of the head office <b>left</b>."
    entry = QueueEntry("x", "IT", Status.DISCUSS, "head", "NOUN", "head", sentence, 3, 16, 20)
    html = sentence_html_from_entry(entry)
    assert html.index("<mark") > html.index("The head of the ")  # the second "head" is marked
    assert html.count("<mark") == 1 and "&#60;b&#62;left&#60;&#47;b&#62;" in html  # and the sentence is escaped
