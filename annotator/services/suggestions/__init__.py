"""Suggestions per item-language (SPEC §5.2) and why a list is empty: one module per job.

- ``card``: the Curate card's reasons and ranked suggestions (``card_view``, ``shown_card``), which
  ``CurationService.handle`` reads to know what an accept or a dismissal refers to;
- ``finder``: the lexicon side (related senses, memoised per process) and ``RelatedParts``, which pre-population
  keeps for every item-language;
- ``mt``: the words of machine translations an evaluation scored MISS (``refresh_mt``, ``miss_lines``);
- ``rates``: the team's accepts and dismissals per kind, which the ranking uses (``suggestion_kinds``);
- ``bulk``: every item-language at once (``annotator suggestions``' JSON lines, ``refresh``);
- ``project_counts``: the Project page's empty-GOOD counts.

The costly parts are computed once and kept with the item-language (``suggestion_cache``), each with the stamp of
what it came from, so a card normally only reads. Nothing here changes a candidate list: accepting a suggestion is
the ordinary add or move, and accepting, dismissing and restoring are commands to ``CurationService.handle``.
"""
