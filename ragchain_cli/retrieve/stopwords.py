"""English stopwords for query-side term selection (RM3). The lexical index itself keeps them."""

from __future__ import annotations

STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing done down during each either else even ever every few
    for from further had has have having he her here hers herself him himself his how however i if in into
    is it its itself just may me might more most much must my myself neither no nor not now of off on once
    only or other our ours ourselves out over own per same shall she should since so some such than that
    the their theirs them themselves then there these they this those though through thus to too under
    until up upon us very via was we were what when where whether which while who whom whose why will with
    within without would yet you your yours yourself yourselves
    """.split()
)
