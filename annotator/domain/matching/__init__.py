"""GOOD / BAD / MISS matching of one analysed translation against an item-language's candidates (SPEC §8, 2–4).

Pure functions over plain data. An item-language's candidates are compiled once (``compile_candidate`` /
``compile_candidates``, then indexed by ``candidate_set``) and reused for every system's translation of the item, so
matching costs a few dictionary look-ups per distinct word of the translation, whatever the number of candidates.

How a candidate's own tokens are analysed (the spec leaves it open): each wildcard-free segment of the candidate
(``prendersi`` and ``permesso`` in ``prendersi * permesso``) is run through the *same* analyser as the translations,
and a candidate matches a level when either its text as typed or its analysed form appears there:

- lemma level: the typed tokens (candidates are lemmas, as in DiBiMT) or the analysed segments' lemmas;
- word level: the typed tokens or the analysed segments' words (``della`` → ``di la``);
- token level: the typed tokens or the analysed segments' tokens (``dell'acqua`` → ``dell'`` ``acqua``).

Analysing both sides with one analyser keeps them consistent even where the lemmatiser is wrong (simplemma gives
``goccio`` → ``gocciare`` on both sides); keeping the typed form keeps DiBiMT's plain lemma comparison.

When GOOD and BAD candidates both match, specificity decides on each span: a candidate found in the translation as
written outranks one found there only through the translation's lemmas (``акра`` over ``акр``), MuCoW's token-first
order. In unspaced scripts the surface step finds a candidate anywhere (``门`` in ``门口``). ``docs/MATCHING.md``
states both rules and their reasons.

``results`` holds the verdict types, ``fold`` the comparison keys and the surface search, ``compile`` the compiled
candidates and their index, ``levels`` the indexed translation and ``match`` the steps; this package gives their
public names.
"""

from annotator.domain.matching.compile import (
    CandidatePattern,
    CandidateSet,
    DatasetCandidate,
    LemmaSets,
    Pattern,
    candidate_segments,
    candidate_set,
    compile_candidate,
    compile_candidates,
)
from annotator.domain.matching.fold import (
    SurfacePiece,
    find_surface,
    fold,
    surface_fold,
    surface_pieces,
    surface_pieces_of,
)
from annotator.domain.matching.match import match_stem_step, match_translation
from annotator.domain.matching.results import BAD, GOOD, AnalysedText, CandidateMatch, MatchResult, Outcome, Step

__all__ = [
    "BAD",
    "GOOD",
    "AnalysedText",
    "CandidateMatch",
    "CandidatePattern",
    "CandidateSet",
    "DatasetCandidate",
    "LemmaSets",
    "MatchResult",
    "Outcome",
    "Pattern",
    "Step",
    "SurfacePiece",
    "candidate_segments",
    "candidate_set",
    "compile_candidate",
    "compile_candidates",
    "find_surface",
    "fold",
    "match_stem_step",
    "match_translation",
    "surface_fold",
    "surface_pieces",
    "surface_pieces_of",
]
