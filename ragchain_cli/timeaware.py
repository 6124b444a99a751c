"""Time-aware retrieval helpers: durations, dates, a recency boost and --since/--until filtering.

All datetimes are timezone-aware UTC; a date or time written without a zone is taken as UTC.
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from typing import Mapping

from .errors import UsageError
from .types import Hit, sort_hits

UNIT_SECONDS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 7 * 86400.0, "y": 365 * 86400.0}
DURATION_FORMS = "a number and a unit: 90s, 90m, 12h, 30d, 2w, 1y (m = minutes, y = 365 days)"
DATE_FORMS = "2024, 2024-05, 2024-05-01, 2024-05-01T10:00:00, 2024-05-01T10:00:00Z or with +02:00"

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdwy])\s*$", re.IGNORECASE)
_YEAR = re.compile(r"^\s*(\d{4})\s*$")
_YEAR_MONTH = re.compile(r"^\s*(\d{4})-(\d{2})\s*$")
_DATE_ONLY = re.compile(r"^\s*\d{4}-\d{2}-\d{2}\s*$")


def parse_duration(text: str) -> float:
    """'30d' -> 2592000.0 seconds. Units: s, m (minutes), h, d, w, y (365 days)."""
    match = _DURATION.match(text or "")
    if not match:
        raise UsageError(f"bad duration {text!r}", f"write {DURATION_FORMS}")
    return float(match.group(1)) * UNIT_SECONDS[match.group(2).lower()]


def parse_date(text: str) -> datetime:
    """An ISO date/time, year or year-month -> aware UTC datetime (start of the period given)."""
    raw = (text or "").strip()
    try:
        if _YEAR.match(raw):
            parsed = datetime(int(raw), 1, 1)
        elif match := _YEAR_MONTH.match(raw):
            parsed = datetime(int(match.group(1)), int(match.group(2)), 1)
        else:
            parsed = datetime.fromisoformat(raw)
    except ValueError:
        raise UsageError(f"bad date {text!r}", f"write one of: {DATE_FORMS}") from None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def _end_of_period(text: str, start: datetime) -> datetime:
    """The last microsecond of the year, month or day that a date-only text names."""
    raw = text.strip()
    if _YEAR.match(raw):
        following = start.replace(year=start.year + 1)
    elif _YEAR_MONTH.match(raw):
        following = start.replace(year=start.year + start.month // 12, month=start.month % 12 + 1)
    elif _DATE_ONLY.match(raw):
        following = start + timedelta(days=1)
    else:
        return start
    return following - timedelta(microseconds=1)


def parse_bound(text: str, now: datetime | None = None, upper: bool = False) -> datetime:
    """A --since/--until value: a duration ('30d' = that long before now) or a date.

    With upper=True a date without a time covers its whole period: --until 2024 means the end of 2024.
    """
    if _DURATION.match(text or ""):
        return _utc(now) - timedelta(seconds=parse_duration(text))
    try:
        start = parse_date(text)
    except UsageError:
        raise UsageError(f"bad date or age {text!r}",
                         f"write an age such as 30d, 12h or 2w ({DURATION_FORMS}), or a date: {DATE_FORMS}") from None
    return _end_of_period(text, start) if upper else start


def _utc(moment: datetime | None) -> datetime:
    if moment is None:
        return datetime.now(timezone.utc)
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def _stored_date(text: str | None) -> datetime | None:
    """A chunk's stored date, or None when it is missing or unreadable (treated as undated)."""
    if not text:
        return None
    try:
        return parse_date(text)
    except UsageError:
        return None


def within(date_str: str | None, since: datetime | None, until: datetime | None) -> bool:
    """since <= date <= until (inclusive). None bounds are ignored.

    With any bound set, an undated (or unreadable) chunk is excluded: it cannot be shown to be
    in the window. With no bound everything passes.
    """
    if since is None and until is None:
        return True
    moment = _stored_date(date_str)
    if moment is None:
        return False
    return (since is None or _utc(since) <= moment) and (until is None or moment <= _utc(until))


def _check_unit(name: str, value: float) -> None:
    if not (isinstance(value, (int, float)) and 0.0 <= value <= 1.0):
        raise UsageError(f"recency {name} must be between 0 and 1, got {value!r}")


def _check_half_life(half_life_s: float) -> None:
    if not (isinstance(half_life_s, (int, float)) and math.isfinite(half_life_s) and half_life_s > 0):
        raise UsageError(
            f"recency half-life must be a positive duration, got {half_life_s!r}", f"write {DURATION_FORMS}"
        )


def decay(moment: datetime | None, now: datetime, half_life_s: float, undated: float = 0.5) -> float:
    """0.5 ** (age / half_life), age counted back from `now`; later dates count as age 0; undated
    chunks get `undated`."""
    if moment is None:
        return undated
    age = max(0.0, (now - moment).total_seconds())
    return 0.5 ** (age / half_life_s)


def relative_relevance(scores: list[float]) -> list[float]:
    """(score - median) / (top - median), clipped to [0, 1]: the top hit is 1, a typical candidate 0.
    Works for any score scale (cc z-scores are negative for most candidates)."""
    if not scores:
        return []
    middle, top = statistics.median(scores), max(scores)
    if top <= middle:
        return [1.0 if s >= top else 0.0 for s in scores]
    return [min(1.0, max(0.0, (s - middle) / (top - middle))) for s in scores]


def recency_boost(
    hits: list[Hit],
    dates: Mapping[str, str | None],
    half_life_s: float,
    weight: float,
    now: datetime | None = None,
    undated: float = 0.5,
) -> list[Hit]:
    """Newer wins between hits of near-equal relevance; relevance first otherwise.

        rel   = (score - median) / (top - median), clipped to [0, 1]   (relative_relevance)
        ref   = the newest date among the hits with rel >= 1 - weight (the near-top hits)
        fresh = 0.5 ** (max(0, ref - date) / half_life)                (undated: `undated`)
        score = rel + weight * fresh

    `weight` is the largest relevance gap recency can make up: a newer hit overtakes an older one
    only when it is less than `weight` below it, and a hit more than `weight` below the top never
    reaches the top, however new. Ages count from the newest near-top hit, not from the clock, so
    a collection whose latest revision is years old still orders its revisions, and a fresh but
    irrelevant file does not set the clock. `now` caps `ref` (a date in the future counts as now).
    Dates come from `dates[chunk_id]`, else hit.chunk.date. Nothing is dropped. explain gains
    "relevance": (rank before, original score) and "recency": (0, fresh).
    """
    _check_unit("weight", weight)
    _check_unit("undated decay", undated)
    _check_half_life(half_life_s)
    relevance = relative_relevance([float(h.score) for h in hits])
    moments = [_stored_date(dates.get(h.chunk_id) if h.chunk_id in dates else (h.chunk.date if h.chunk else None))
               for h in hits]
    near_top = [m for m, rel in zip(moments, relevance) if m is not None and rel >= 1 - weight]
    reference = min(max(near_top), _utc(now)) if near_top else _utc(now)
    boosted = []
    for rank, (hit, rel, moment) in enumerate(zip(hits, relevance, moments), start=1):
        fresh = decay(moment, reference, half_life_s, undated)
        explain = {**hit.explain, "relevance": (rank, float(hit.score)), "recency": (0, fresh)}
        boosted.append(replace(hit, score=rel + weight * fresh, explain=explain))
    return sort_hits(boosted)
