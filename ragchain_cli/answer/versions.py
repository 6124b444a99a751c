"""Versions in the answer: the newest version of a document answers, an older one only says what changed.

Pure functions over the hits the answer side reads and a `Lookup` it is given (built outside
answer/, from the index's version groups and its search components: retrieve/versions.py):

    reconcile(question, hits, mode, lookup) -> Reconciled     before the passages are chosen
    with_versions(payload, reconciled, best_sentence)          once the answer payload is made

Modes (Settings.versions, `ask --versions`):
- "newest" (default): a hit of a superseded version leaves the passages the answer is drawn from;
  its group's newest version takes the slot of the group's best-ranked hit: its own hits when
  the search found them ("retrieved"), else its best passage for the question, fetched through
  the lookup ("fetched"). When no passage of the newest version can be had (a --since, --until or
  --source filter excludes it, or it holds no text) the older passage stays, and the answer says
  plainly which version supersedes it ("superseded"). The older passages are kept only to say
  what changed: the answer gets `(The older version, <doc> of <date>, said: "<its best sentence>")`,
  composed here from the older passage's own text, never by the model; nothing is added when the
  newest version's text holds that sentence too (nothing changed on the point asked).
- "all": today's behaviour before versions (any version answers); citations still say `superseded_by`.
- "latest": the search already dropped older versions (SearchOptions.latest); the groups it
  dropped from are named ("dropped").

JSON: each citation gets `superseded_by` (the newest version of its document, or null), and the
payload a top-level `versions`: one entry per group the answer reconciled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from ..types import Hit

MODES = ("newest", "all", "latest")


@dataclass(frozen=True)
class Lookup:
    """What the answer side may ask the index about versions."""

    newest_of: Callable[[str], str | None]  # doc_id -> the newest version of its group, None when it is the newest
    best_passage_of: Callable[[str, str], Hit | None]  # (question, doc_id) -> its best passage, hydrated


NO_VERSIONS = Lookup(lambda doc_id: None, lambda question, doc_id: None)


@dataclass
class Group:
    """One version group the answer reconciled."""

    newest: str
    how: str  # "retrieved" | "fetched" | "superseded" | "dropped"
    older: list[str] = field(default_factory=list)  # the older doc_ids met (or dropped), in rank order
    older_hits: list[Hit] = field(default_factory=list)  # their passages, best-ranked first

    def payload(self, said: str | None) -> dict:
        first = self.older_hits[0] if self.older_hits else None
        return {"newest": self.newest, "older": list(self.older), "how": self.how,
                "answered_from": self.older[0] if self.how == "superseded" else self.newest,
                "older_said": {"doc_id": first.doc_id, "chunk_id": first.chunk_id, "date": _date(first),
                               "sentence": said} if first is not None and said else None}


@dataclass
class Reconciled:
    answer_from: list[Hit]  # the passages the answer may be drawn from (newest of each group in its slot)
    older: list[Hit] = field(default_factory=list)  # superseded passages, kept only to say what changed
    groups: list[Group] = field(default_factory=list)
    superseded: dict[str, str] = field(default_factory=dict)  # doc_id -> its newest version, for the hits met


def reconcile(question: str, hits: list[Hit], mode: str, lookup: Lookup) -> Reconciled:
    """Which passages the answer may be drawn from, and the older ones that only say what changed."""
    newest = {h.doc_id: lookup.newest_of(h.doc_id) for h in hits}
    superseded = {doc: head for doc, head in newest.items() if head}
    if mode == "latest":  # the search dropped older versions (hits it did not drop are left out here)
        kept = [h for h in hits if newest[h.doc_id] is None]
        return Reconciled(kept, groups=[Group(h.doc_id, "dropped", list(h.older_versions))
                                        for h in kept if h.older_versions])
    if mode == "all" or not superseded:
        return Reconciled(hits, superseded=superseded)
    done = Reconciled([], superseded=superseded)
    groups: dict[str, Group] = {}
    taken: set[str] = set()  # chunk IDs already in answer_from

    def take(hit: Hit) -> None:
        if hit.chunk_id not in taken:
            taken.add(hit.chunk_id)
            done.answer_from.append(hit)

    for hit in hits:
        head = newest[hit.doc_id]
        if head is None:
            take(hit)
            continue
        group = groups.get(head)
        if group is None:
            group = groups[head] = _open(question, head, hits, lookup, take)
            done.groups.append(group)
        if hit.doc_id not in group.older:
            group.older.append(hit.doc_id)
        group.older_hits.append(hit)
        if group.how == "superseded":
            take(hit)  # nothing newer to answer from: the older passage stays, said to be superseded
        else:
            done.older.append(hit)
    return done


def _open(question: str, head: str, hits: list[Hit], lookup: Lookup, take: Callable[[Hit], None]) -> Group:
    """A group met at its best-ranked older hit: its newest version's passages take that slot."""
    own = [h for h in hits if h.doc_id == head]
    if own:
        for hit in own:
            take(hit)
        return Group(head, "retrieved")
    fetched = lookup.best_passage_of(question, head)
    if fetched is None:
        return Group(head, "superseded")
    take(fetched)
    return Group(head, "fetched")


def with_versions(payload: dict, reconciled: Reconciled, best_sentence: Callable[[Hit], str]) -> dict:
    """The answer payload with the version facts: `superseded_by` on each citation, `versions`
    naming the groups reconciled, and (when answered) the note on what changed or on what
    supersedes the source. best_sentence(hit): the older passage's sentence that best matches the question."""
    if "answer" not in payload:  # retrieval only (ask --no-generate): the hits say superseded_by already
        return payload
    citations = [{**c, "superseded_by": reconciled.superseded.get(c["doc_id"])} for c in payload["citations"]]
    cited = {c["doc_id"] for c in citations}
    entries, notes = [], []
    for group in reconciled.groups:
        said = _changed(group, reconciled.answer_from, best_sentence) if group.how in ("retrieved", "fetched") else None
        entries.append(group.payload(said))
        if said and group.newest in cited:
            notes.append(changed_note(group.older_hits[0], said))
        elif group.how == "superseded" and cited & set(group.older):
            notes.append(superseded_note(group.older[0], group.newest))
    settled = {**payload, "citations": citations, "versions": entries}
    if notes and payload.get("answered"):
        settled["answer"] = " ".join([payload["answer"], *notes])
    return settled


def _changed(group: Group, answer_from: list[Hit], best_sentence: Callable[[Hit], str]) -> str | None:
    """The older version's best sentence for the question, when the newest version's text lacks it."""
    if not group.older_hits:
        return None
    said = best_sentence(group.older_hits[0]).strip()
    newest = " ".join(_folded(h.chunk.text) for h in answer_from if h.doc_id == group.newest and h.chunk)
    return said if said and _folded(said) not in newest else None


def changed_note(older: Hit, sentence: str) -> str:
    """'(The older version, policy-2021.md of 2021-03-15, said: "Staff may ... two days per week.")'"""
    when = f" of {_date(older)}" if _date(older) else ""
    return f'(The older version, {older.doc_id}{when}, said: "{_plain(sentence)}")'


def superseded_note(older: str, newest: str) -> str:
    return f"(This comes from {older}, which the newer version {newest} supersedes.)"


def _date(hit: Hit) -> str | None:
    """The day of the hit's document date (None when undated)."""
    date = hit.chunk.date if hit.chunk is not None else None
    return date[:10] if date else None


_EMPHASIS = re.compile(r"(\*\*|__|`)")


def _plain(sentence: str) -> str:
    """The sentence as quoted: whitespace folded, Markdown emphasis marks out, no end quote inside."""
    return " ".join(_EMPHASIS.sub("", sentence).replace('"', "'").split())


def _folded(text: str) -> str:
    return " ".join(_EMPHASIS.sub("", text).lower().split())


def bears_on(group: dict, question: str) -> bool:
    """Can a refusal's version group (as the payload lists it) bear on the question? Not when what the
    older version said shares fewer than two of its content words ("Do adult mayflies have working
    mouths?", refused, has nothing to learn from "Staff may work from home ..."), or its one word."""
    from ..text.words import content_stems

    said, asked = (group.get("older_said") or {}).get("sentence", ""), set(content_stems(question))
    return not said or not asked or len(set(content_stems(said)) & asked) >= min(2, len(asked))
