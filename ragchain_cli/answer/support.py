"""The word checks beside the answer judge (verdicts "both"), each shown by a sealed probe to still
change outcomes for the better (bench/RESULTS.md, "Answer judge"; docs/JUDGE.md lists them).

The support check looks for the answer's key content in the passages the model was given: every
number (in a passage that also holds a content word of the question or answer), name and rare word
(in at most RARE_SHARE of the index's chunks) that the question does not already contain. A "Yes" to
a yes/no question also claims the question's names and rare words, all in one passage ("Yes, Heron
Inlet is closed in August." is not supported by one passage on Heron Inlet and another on August);
not its numbers (often a bound: "before 1900"), nor a rare word no passage holds (a paraphrase). A day or month inside a range a passage gives ("Mon-
Fri") is held by it. Supported: every number and all but MISSING_ALLOWED of the other key terms found,
each from the sentence that holds the rest, with the passages' unit or noun after a number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..text.polar import SIDE, is_polar, said_side
from ..text.sentences import sentences
from ..text.words import (PRONOUNS, RANK_WORDS, TermStats, calendar_names, content_stems, is_content, number, stem,
                          stems_of, tokens, values, without_markers)

# Set by hand when the support check was written (b28eab1), not tuned on a data set: a word in at most
# 2% of the index's chunks is rare enough to be checked; at most a quarter of the other key terms may be
# missing (paraphrase, spelling). The sealed probes show this check helping beside the judge (bench/RESULTS.md).
RARE_SHARE = 0.02
LIST_ITEM_WORDS = 4  # a list's items are short: "lemon juice", "a pinch of salt"
MISSING_ALLOWED = 0.25  # share of non-number key terms that may be missing (paraphrase, spelling)
NOUN_AFTER = 3  # words after a passage's number that may be what it counts ("42 monocrystalline panels")

def adds_to(answer: str, question: str) -> bool:
    """Does the answer hold a word (or number) the question does not? "The last boat leaves on
    Sundays." adds nothing to "When does the last boat leave on Sunday?"."""
    text = without_markers(answer)
    return bool(set(content_stems(text)) - stems_of(question)) or bool(set(values(text)) - set(values(question)))


@dataclass
class Support:
    supported: bool
    checked: list[str] = field(default_factory=list)  # the answer's key terms
    missing: list[str] = field(default_factory=list)  # those the passages do not contain
    apart: list[str] = field(default_factory=list)  # a Yes's claimed terms found, but not in one passage with the rest
    elsewhere: list[str] = field(default_factory=list)  # found, but in another sentence than the rest of the answer
    units: list[str] = field(default_factory=list)  # a number the passages give with another unit or noun

    def reason(self, answer: str = "") -> str:
        """Why the answer is not verified, as a phrase ("" when it is); its terms named as `answer` writes them."""
        if self.supported:
            return ""
        quoted = ", ".join(f'"{term}"' for term in as_written(self.missing, answer))
        reasons = [f"ragchain could not find {quoted} in the passages"] if self.missing else []
        if self.apart:
            rest = [t for t in self.checked if t not in self.apart and t not in self.missing]
            reasons.append(f"no one passage holds {_named(self.apart, answer)}"
                           + (f" together with {_named(rest, answer)}" if rest else " together"))
        if self.elsewhere:
            terms = as_written(self.elsewhere, answer)
            verb = "comes" if len(terms) == 1 else "come"
            reasons.append(f"{', '.join(terms)} {verb} from another sentence than the rest of the answer")
        if self.units:
            reasons.append(f"the passages give {', '.join(self.units)} with another unit or noun")
        return "; ".join(reasons) or "the passages do not contain its key content"


_WRITTEN_NUMBER = re.compile(r"\d+(?:[:./-]\d+)+")


def as_written(terms: list[str], answer: str) -> list[str]:
    """The terms, with a time, date or ratio the tokenizer split ("16:10": 16 and 10) named whole, as
    the answer writes it."""
    named = list(terms)
    for match in _WRITTEN_NUMBER.finditer(answer):
        parts = re.findall(r"\d+", match.group())
        if all(part in named for part in parts):
            at = named.index(parts[0])
            named = [t for t in named if t not in parts]
            named.insert(min(at, len(named)), match.group())
    return named


def _named(terms: list[str], answer: str) -> str:
    return ", ".join(as_written(terms, answer))


def key_terms(answer: str, question: str, stats: TermStats | None) -> list[str]:
    """Numbers, names and rare words of the answer that the question does not already contain."""
    asked = stems_of(question)
    found = tokens(without_markers(answer))
    if found and found[0][:1].isupper():  # a sentence's first word is capitalised whatever it is
        found[0] = found[0].lower()
    words = [t for t in found if is_content(t) and stem(t) not in asked]
    rare: set[str] = set()
    plain = [w.lower() for w in words if not (w[0].isdigit() or w[0].isupper())]
    if stats is not None and plain:
        limit = RARE_SHARE * stats.total
        rare = {w for w, df in stats.df(plain).items() if df <= limit}
    keys = [w for w in words if w[0].isdigit() or w[0].isupper() or w.lower() in rare]
    return list(dict.fromkeys(keys))


def check_support(answer: str, question: str, passages: list[str], stats: TermStats | None = None) -> Support:
    """Is the answer's key content in the passages? (see the module doc)."""
    keys = key_terms(answer, question, stats)
    held = [stems_of(p) | calendar_names(p, ranges=True) for p in passages]
    present = set().union(*held)
    about = _subject(answer, question)
    missing = [k for k in keys if stem(k) not in present]
    missing += [k for k in keys if k[0].isdigit() and k not in missing and not _in_context(stem(k), held, about)]
    allowed = int(MISSING_ALLOWED * len([k for k in keys if not k[0].isdigit()]))
    items = [i for i in list_items(answer) if not set(content_stems(i)) & present]  # every item is a claim
    items += unranked(question, passages)
    claimed = [c for c in _claimed(answer, question, stats) if c[0].isupper() or stem(c) in present]
    apart = _apart(claimed, held, answer, question)
    elsewhere = [k for k in stitched(answer, question, keys, passages) if k not in missing]
    units = unit_mismatch(answer, passages)
    supported = not any(k[0].isdigit() for k in missing) and len(missing) <= allowed and not items \
        and not apart and not elsewhere and not units
    missing += [i for i in items if i not in missing]
    absent = [c for c in apart if stem(c) not in present and c not in missing]
    return Support(supported=supported, checked=keys + [c for c in claimed if c not in keys],
                   missing=missing + absent, apart=[c for c in apart if c not in absent and c not in missing],
                   elsewhere=elsewhere, units=units)


def stitched(answer: str, question: str, keys: list[str], passages: list[str]) -> list[str]:
    """The answer's numbers, names and list items that stand in no sentence among those that best hold
    the rest of its words: "The old school was built in 1972" when 1972 is the fire station's year, the
    sentence before it; "paper, card and glass" when glass is in the next sentence. The best sentences
    hold most of the answer's words that the question asks about, then most of its other words. Needs
    at least two other words to place the answer."""
    terms = [k for k in keys if k[0].isdigit() or k[0].isupper()]
    rest = set(content_stems(without_markers(answer))) - {stem(k) for k in terms}
    if len(rest) < 2:
        return []
    units = _sentence_units(passages)
    asked = rest & stems_of(question)
    scores = [(len(asked & u), len(rest & u)) for u in units]
    top = max(scores, default=(0, 0))
    best = [u for u, score in zip(units, scores) if score == top]
    items = [i for i in list_items(answer) if not stems_of(i) & {stem(k) for k in terms}]
    placed = [(k, {stem(k)}) for k in terms] + [(i, set(content_stems(i)) - asked) for i in items]
    return [k for k, s in placed if top[1] and s and any(s & u for u in units) and not any(s & u for u in best)]


def _sentence_units(passages: list[str]) -> list[set[str]]:
    """The passages' sentences as sets of stems. A sentence that opens with a pronoun ("It burned down
    in 1936.") also holds the words, not the numbers, of the sentence before it, which it speaks of."""
    units: list[set[str]] = []
    for passage in passages:
        before: set[str] = set()
        for sentence in sentences(passage):
            own = stems_of(sentence)
            first = tokens(sentence)[:1]
            inherited = {w for w in before if not w[:1].isdigit()} if first and first[0].lower() in PRONOUNS else set()
            units.append(own | inherited)
            before = own
    return units


def list_items(answer: str) -> list[str]:
    """The items of a list of three or more in the answer ("icing sugar, lemon juice and melted
    butter"): parts split at commas, the last holding "and" or "or", every item after the first at most
    LIST_ITEM_WORDS words. The first keeps what stands before it in its clause. [] when there is none."""
    text = SIDE.sub("", without_markers(answer))
    clause = max(re.split(r"[;:]|\.(?:\s|$)", text), key=lambda c: c.count(", "))
    parts = [p.strip() for p in re.split(r",(?=\s)", clause) if p.strip()]
    last = re.split(r"^(?:and|or)\s+|\s+(?:and|or)\s+", parts[-1]) if parts else []
    items = parts[:-1] + [i for i in last if i]
    if len(parts) < 2 or len(last) < 2 or len(items) < 3 or any(len(i.split()) > LIST_ITEM_WORDS for i in items[1:]):
        return []
    return items


def unit_mismatch(answer: str, passages: list[str]) -> list[str]:
    """'41 feet' when every passage that gives 41 gives it in metres: a number of the answer followed by
    a content word, that the passages give only followed by other words (an abbreviation, a word's
    first letters, is the same word)."""
    said = _numbers_with_nouns(without_markers(answer))
    given: dict[str, set[str]] = {}
    for passage in passages:  # a passage's noun may follow an adjective: "42 monocrystalline panels"
        for value, noun in _numbers_with_nouns(passage, NOUN_AFTER):
            given.setdefault(value, set()).add(noun)
    return [f"{value} {noun}" for value, noun in said if given.get(value)
            and not any(noun.startswith(g) or g.startswith(noun) for g in given[value])]  # "min" for "minutes"


def _numbers_with_nouns(text: str, within: int = 1) -> list[tuple[str, str]]:
    """(number, stem) for each number in digits and each of the content words right after it, at most
    `within` of them in a row ("42 monocrystalline panels": both; "1906 by the British": none)."""
    words = tokens(text)
    found = []
    for i, word in enumerate(words):
        if word[:1].isdigit():
            for after in words[i + 1:i + 1 + within]:
                if after[:1].isdigit() or not is_content(after):
                    break
                found.append((number(word), stem(after)))
    return found


def unranked(question: str, passages: list[str]) -> list[str]:
    """The question's ranks from second on ("the second time", "a third offence") that no passage gives, in words or
    digits: the passages' one widening, or their first offence, do not answer for the second."""
    asked = [w for w in tokens(question) if RANK_WORDS.get(w.lower(), "1") != "1"]  # "first" is often implied
    return [w for w in asked if not any(re.search(rf"\b(?:{w}|{RANK_WORDS[w.lower()]}(?:st|nd|rd|th))\b", p, re.I)
                                        for p in passages)]


def _claimed(answer: str, question: str, stats: TermStats | None) -> list[str]:
    """What a "Yes" to a yes/no question claims besides its own words: the question's names and rare
    words (its numbers are often a bound it compares to, "before 1900", and are not claimed)."""
    if not (is_polar(question) and said_side(answer) == "yes"):
        return []
    return [k for k in key_terms(question, "", stats) if not k[0].isdigit()]


def _apart(claimed: list[str], held: list[set[str]], answer: str, question: str) -> list[str]:
    """The claimed terms missing from the passage that holds the most of the answer's words (then of
    the claimed terms): one claim, one passage ("Heron Inlet" in one and "August" in another do not make "closed
    in August"). A term in another passage is not apart when that passage and the best one share two
    or more words of the answer that the question lacks: the answer names the link between them
    ("the Ferry Inn is on the north bank", "the north bank is in the Fife area")."""
    if not claimed:
        return []
    stems = {term: stem(term) for term in claimed}
    said = set(content_stems(without_markers(answer)))
    best = max(held, key=lambda h: (len(said & h), sum(s in h for s in stems.values())), default=set())
    own = said - stems_of(question)
    linked = [h for h in held if len(own & h & best) >= 2]
    return [term for term, s in stems.items() if s not in best and not any(s in h for h in linked)]


def _subject(answer: str, question: str) -> set[str]:
    """The content stems of the question and answer, numbers aside: what a number must sit beside."""
    return {s for s in content_stems(question) + content_stems(without_markers(answer)) if not s[:1].isdigit()}


def _in_context(numeral: str, held: list[set[str]], about: set[str]) -> bool:
    """Does a passage (its stems) hold the number together with a content word of the question or
    answer? A "12" found only in a passage about something else does not support "a tongue 12 cm long"."""
    return not about or any(numeral in stems and stems & about for stems in held)
