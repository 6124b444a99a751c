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

import re
from functools import cache

from .sentences import sentences
from .units import unit
from .words import CALENDAR_WORDS, NUMBER_WORDS, STOPWORDS, stem, tokens, values, without_markers

_WH = frozenset("what which who whom whose where why how".split())  # "When X is done, what ...?" asks what
_LEAD = frozenset("in at on for by to from of with during since until and so but".split())
_TIME_NOUNS = frozenset("year date day month century time".split())  # "In what year ...?"
_QUANTITIES = frozenset("""several many few dozen dozens hundreds thousands millions billions none no all half most some
    couple majority minority single only both every each""".split()) | frozenset(NUMBER_WORDS)
# a link word counts even when the question holds it ("when the ice melts"); other time words only when new
# ("next" is left out: "next to the inverters" is a place)
_TIME_LINKS = frozenset("before after during until till since when while once between ago".split())
_TIMES = frozenset("""later earlier then now today tonight yesterday tomorrow soon already always never every each
    year month week day night morning afternoon evening noon midnight hour minute century decade era age
    period time season spring summer autumn fall winter dawn dusk daily weekly monthly yearly annually
    beginning end start early late first last previous recently""".split()) | CALENDAR_WORDS
_CAUSES = frozenset("""because since as so thanks therefore thus hence reason reasons cause causes caused
    causing result results resulting lead leads led allow allows allowing enable enables help helps prevent prevents
    protect protects avoid avoids keep keeps make makes need needs order purpose by to""".split())
_PERSONS = frozenset("""man men woman women people person persons child children family father mother son daughter
    brother sister wife husband king queen emperor president minister officer staff team crew member members
    director manager owner worker workers student students teacher scientist scientists engineer engineers
    company government army council committee group society volunteers volunteer colleague colleagues board
    court parliament agency department university club police authority authorities ministry union party firm
    everyone nobody anyone someone""".split())
# "Which firm ...?", "What company ...?" ask for someone as "who" does ("family", "group": not always people)
_WHICH_WHO = frozenset("""company companies firm firms contractor contractors supplier manufacturer agency organisation
    organization authority council ministry department university club team person people man woman king queen
    president director manager officer engineer scientist architect builder author artist employer owner""".split())
_AGENT = ("ers", "ors", "ists", "ians")  # miners, sailors, chemists, historians (plural: "ever", "tower" are none)
_WHEN_NUMBER = re.compile(r"\b(?:\d{3,4}s?|\d{1,2}[:.]\d{2})\b")  # a year ("1890", "1920s"), a clock time ("16:10")
_CAUSE_PHRASE = re.compile(r"\b(?:due|owing)\s+to\b", re.IGNORECASE)  # "due south" gives no reason
# "their days", "his time": a time noun owned by someone names no time
_POSSESSIVES = frozenset("my your his her its our their".split())
# "How much does X cost?" asks for a price: an amount of money, or a number of no other unit ("12 on
# board", "38,400 including installation"), not "twenty minutes" or a year
_PRICE_WORDS = frozenset("cost costs costing price prices priced pay pays paid charge charges charged fee fees fare "
                         "fares spend spent worth afford".split())
_CURRENCY = frozenset("""euro euros eur cent cents dollar dollars usd pound pounds gbp pence penny franc francs yen
    yuan rupee rupees krona kronor krone kroner kr sek nok dkk chf zloty free""".split())
_CURRENCY_SIGN = re.compile(r"[€$£¥₹]")
_YEARS = re.compile(r"(?<![€$£¥₹\d.,])\b(?:1[5-9]\d\d|20\d\d)(?:\s*[-–/]\s*\d{2,4})?\b")  # "1998", "2020-21"
# besides the units of text/units.py (length, mass, volume, time): what else a number may count
_OTHER_UNITS = ("""percent per cent times people persons person staff visitors guests passengers members
    ton hp kw kwh watt volt degree""")
# "How often ...?" asks for a frequency: "every Monday", "twice a week", "monthly", "rarely"
_FREQUENCIES = frozenset("""every each per daily nightly weekly fortnightly monthly quarterly yearly annually hourly
    once twice thrice times always never usually often seldom rarely sometimes occasionally regularly frequently
    constantly continuously""".split())
_RATE = re.compile(r"\b(?:a|an)\s+(?:day|night|week|fortnight|month|year|hour|minute|season|decade|century)\b",
                   re.IGNORECASE)  # "two trips a week"
WHAT = {"number": "how many or how much", "time": "when", "cause": "why", "who": "who",
        "price": "how much it costs", "frequency": "how often", "organisation": "which one it is"}  # as a reason says it


def kind(question: str) -> str:
    """'number', 'price', 'frequency', 'time', 'cause', 'who', 'organisation' or '' (any other question, a
    yes/no one included)."""
    asked = (sentences(question) or [question])[-1]
    words = [w.lower() for w in tokens(without_markers(asked))]
    while words and words[0] in _LEAD:
        words = words[1:]
    first, second = (words + ["", ""])[:2]
    if first == "how" and second in {"many", "much"}:
        return "price" if second == "much" and _PRICE_WORDS & set(words) else "number"
    if first == "how" and second in {"often", "frequently"}:
        return "frequency"
    if (first == "when" and not _WH & set(words[1:])) or (first in {"what", "which"} and second in _TIME_NOUNS):
        return "time"
    if first == "why":
        return "cause"
    if first in {"who", "whom"}:
        return "who"
    if first in {"which", "what"} and second in _WHICH_WHO:  # "Which firm ...?": a name, or who they are
        return "organisation"
    return ""


def gives(answer: str, question: str, asked: str) -> bool:
    """Does `answer` hold a word of the kind `asked` that the question does not (True for no kind)?"""
    if not asked:
        return True
    text = without_markers(answer)
    raw = tokens(text)
    asked_stems = {stem(w) for w in tokens(question)}
    new = [w for w in raw if stem(w) not in asked_stems]
    lower = {w.lower() for w in new}
    said = {w.lower() for w in raw}  # a link word counts even when the question has it ("when", "to", "by")
    if asked == "number":
        return bool(set(values(text)) - set(values(question))) or bool(lower & _QUANTITIES)
    if asked == "frequency":  # a number alone is none ("2 boats"); "every", "twice", "a week" are
        return bool(said & _FREQUENCIES) or bool(_RATE.search(text))
    if asked == "price":
        return bool(_CURRENCY_SIGN.search(text)) or bool(lower & _CURRENCY) or _amount(text, question)
    if asked == "time":  # not any number: "30 kWh" is no time
        return bool(_WHEN_NUMBER.search(text)) or bool(said & _TIME_LINKS) or _names_a_time(raw, asked_stems)
    named = any(w[:1].isupper() and w.lower() not in STOPWORDS for w in new)
    if asked == "organisation":  # not an agent noun: "the inverters" name no firm
        return bool(lower & (_PERSONS | _WHICH_WHO)) or named
    if asked == "cause":
        return bool(said & _CAUSES) or bool(_CAUSE_PHRASE.search(text))
    return bool(lower & _PERSONS) or any(len(w) > 5 and w.endswith(_AGENT) for w in lower) or "by" in said or named


def _names_a_time(raw: list[str], asked_stems: set[str]) -> bool:
    """A time word the question lacks, not owned by someone ("in the evening", not "their days")."""
    times = _time_stems()
    return any(stem(w) in times and stem(w) not in asked_stems and (i == 0 or raw[i - 1].lower() not in _POSSESSIVES)
               for i, w in enumerate(raw))


def _amount(text: str, question: str) -> bool:
    """A number in digits the question lacks that may be an amount of money: not a year ("the winter of 2020-21")
    and not followed by a unit of something else ("twenty minutes", "40 metres", "12 people")."""
    asked = set(values(question))
    raw = tokens(_YEARS.sub(" ", text))
    for i, word in enumerate(raw):
        if word[:1].isdigit() and not set(values(word)) <= asked:  # "the old one" is no amount
            after = raw[i + 1].lower() if i + 1 < len(raw) else ""
            if stem(after) not in _other_units() and unit(after) is None:
                return True
    return False


@cache
def _other_units() -> frozenset[str]:
    return frozenset(stem(w) for w in _OTHER_UNITS.split()) | _time_stems()


@cache
def _time_stems() -> frozenset[str]:
    return frozenset(stem(w) for w in _TIMES)
