"""The ISO 639-1 codes a project may use, as a table: a command checking the usual two-letter codes answers without
loading the language registry (``langcodes`` and its data take longer to load than the rest of ``init``).

Exactly the two-letter codes ``languages`` accepts by the registry (a test holds the two equal); a code outside it
(three letters, a retired or private code, a typo) is still looked up in the registry, which says why it is refused.
"""

from __future__ import annotations

_WRITTEN = """
    aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en
    eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv
    ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne
    ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st
    su sv sw ta te tg th ti tk tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu
    """
PROJECT_CODES = frozenset(_WRITTEN.split())
