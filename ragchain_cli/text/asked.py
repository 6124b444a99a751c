"""What kind of thing a question asks for, and whether an answer gives one.

"How many ...?" asks for a number, "When ...?" for a time, "Why ...?" for a reason, "Who ...?" for
someone. A reply that restates the question's subject without giving that kind of thing ("The
winch was serviced last week." to "Who serviced the winch?") answers another question. `kind` reads
the question word that opens the question's last sentence; `gives` says whether an answer holds a
word of that kind that the question does not. Each kind accepts generously (any number, any time
word, any causal link, any name or person noun): the check is meant to catch a reply that gives
nothing of the kind, not to grade how well it gives it.
"""

from __future__ import annotations

from .sentences import sentences
from .words import NUMBER_WORDS, STOPWORDS, calendar_names, stem, tokens, values, without_markers

_WH = frozenset("what which who whom whose where why how".split())  # "When X is done, what ...?" asks what
_LEAD = frozenset("in at on for by to from of with during since until and so but".split())
_QUANTITIES = frozenset("""several many few dozen dozens hundreds thousands millions billions none no all half most some
    couple majority minority single both every each""".split())
_TIMES = frozenset("""before after during until till since when while once ago later earlier then now today tonight
    yesterday tomorrow soon already always never every each year years month months week weeks day days night
    morning afternoon evening noon midnight hour hours minute minutes century centuries decade decades era age
    period time times season spring summer autumn fall winter dawn dusk daily weekly monthly yearly annually
    beginning end start early late first last previous next recently between monday tuesday wednesday thursday
    friday saturday sunday january february march april may june july august september october november
    december""".split())
_CAUSES = frozenset("""because since as so due owing thanks therefore thus hence reason reasons cause causes caused
    causing result results resulting lead leads led allow allows allowing enable enables help helps prevent prevents
    protect protects avoid avoids keep keeps make makes need needs order purpose by to""".split())
_PERSONS = frozenset("""man men woman women people person persons child children family father mother son daughter
    brother sister wife husband king queen emperor president minister officer staff team crew member members
    director manager owner worker workers student students teacher scientist scientists engineer engineers
    company government army council committee group society volunteers volunteer colleague colleagues board
    court parliament agency department university club police authority authorities ministry union party firm
    everyone nobody anyone someone""".split())


WHAT = {"number": "how many or how much", "time": "when", "cause": "why", "who": "who"}  # as a reason says it

_AGENT = ("ers", "ors", "ists", "ians")  # miners, sailors, chemists, historians (plural: "ever", "tower" are none)


def kind(question: str) -> str:
    """'number', 'time', 'cause', 'who' or '' (any other question, a yes/no one included)."""
    asked = (sentences(question) or [question])[-1]
    words = [w.lower() for w in tokens(without_markers(asked))]
    while words and words[0] in _LEAD:
        words = words[1:]
    first, second = (words + ["", ""])[:2]
    if first == "how" and second in {"many", "much"}:
        return "number"
    if (first == "when" and not _WH & set(words[1:])) or (first in {"what", "which"} and second in {"year", "date", "day", "month", "century", "time"}):
        return "time"
    if first == "why":
        return "cause"
    if first in {"who", "whom"}:
        return "who"
    return ""


def gives(answer: str, question: str, asked: str) -> bool:
    """Does `answer` hold a word of the kind `asked` that the question does not (True for no kind)?"""
    if not asked:
        return True
    text = without_markers(answer)
    raw = tokens(text)
    new = [w for w in raw if stem(w) not in {stem(q) for q in tokens(question)}]
    lower = {w.lower() for w in new}
    numbers = bool(set(values(text)) - set(values(question)))
    said = {w.lower() for w in raw}  # a link word counts even when the question has it ("when", "to", "by")
    if asked == "number":
        return numbers or bool(lower & (_QUANTITIES | set(NUMBER_WORDS)))
    if asked == "time":
        return numbers or bool(said & _TIMES) or bool(calendar_names(text) - calendar_names(question))
    if asked == "cause":
        return bool(said & _CAUSES)
    return bool(lower & _PERSONS) or any(len(w) > 5 and w.endswith(_AGENT) for w in lower) or "by" in said \
        or any(w[:1].isupper() and w.lower() not in STOPWORDS for w in new)
