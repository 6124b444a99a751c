"""Durations, dates, the recency boost and --since/--until filtering."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from ragchain_cli.errors import UsageError
from ragchain_cli.timeaware import (
    decay,
    parse_bound,
    parse_date,
    parse_duration,
    recency_boost,
    relative_relevance,
    within,
)
from ragchain_cli.types import Chunk, Hit

UTC = timezone.utc
NOW = datetime(2024, 6, 1, tzinfo=UTC)
DAY = 86400.0


# ---------------------------------------------------------------- parse_duration


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30d", 30 * DAY),
        ("12h", 12 * 3600.0),
        ("2w", 14 * DAY),
        ("1y", 365 * DAY),
        ("90m", 90 * 60.0),
        ("45s", 45.0),
        ("1.5d", 1.5 * DAY),
        (" 7D ", 7 * DAY),
    ],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "30", "d", "-3d", "3 days", "3x", "1d2h", "P30D"])
def test_parse_duration_rejects_bad_input_naming_the_forms(text):
    with pytest.raises(UsageError) as err:
        parse_duration(text)
    assert "30d" in err.value.hint


# ---------------------------------------------------------------- parse_date


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-05-01", datetime(2024, 5, 1, tzinfo=UTC)),
        ("2024-05-01T10:00:00", datetime(2024, 5, 1, 10, tzinfo=UTC)),
        ("2024-05-01T10:00:00Z", datetime(2024, 5, 1, 10, tzinfo=UTC)),
        ("2024-05-01T12:00:00+02:00", datetime(2024, 5, 1, 10, tzinfo=UTC)),
        ("2024", datetime(2024, 1, 1, tzinfo=UTC)),
        ("2024-05", datetime(2024, 5, 1, tzinfo=UTC)),
    ],
)
def test_parse_date_returns_aware_utc(text, expected):
    parsed = parse_date(text)
    assert parsed == expected
    assert parsed.utcoffset() == timedelta(0)


@pytest.mark.parametrize("text", ["", "yesterday", "2024-13-01", "2024-02-30", "24-05-01", "2024-5"])
def test_parse_date_rejects_bad_input(text):
    with pytest.raises(UsageError) as err:
        parse_date(text)
    assert "2024-05-01" in err.value.hint


def test_parse_bound_accepts_durations_relative_to_now_and_dates():
    assert parse_bound("30d", now=NOW) == NOW - timedelta(days=30)
    assert parse_bound("2024-05-01", now=NOW) == datetime(2024, 5, 1, tzinfo=UTC)


def test_a_bad_bound_names_both_forms_it_takes():
    with pytest.raises(UsageError, match="bad date or age 'yesterday'") as caught:
        parse_bound("yesterday", now=NOW)
    assert "30d" in caught.value.hint and "2024-05-01" in caught.value.hint


def test_parse_bound_upper_covers_the_whole_period_named():
    tick = timedelta(microseconds=1)
    assert parse_bound("2024", upper=True) == datetime(2025, 1, 1, tzinfo=UTC) - tick
    assert parse_bound("2024-12", upper=True) == datetime(2025, 1, 1, tzinfo=UTC) - tick
    assert parse_bound("2024-02", upper=True) == datetime(2024, 3, 1, tzinfo=UTC) - tick
    assert parse_bound("2024-05-01", upper=True) == datetime(2024, 5, 2, tzinfo=UTC) - tick
    exact = "2024-05-01T10:00:00"
    assert parse_bound(exact, upper=True) == parse_date(exact)


# ---------------------------------------------------------------- within


def test_within_is_inclusive_and_ignores_missing_bounds():
    since, until = parse_date("2024-01-01"), parse_bound("2024-03-31", upper=True)
    assert within("2024-01-01", since, until)
    assert within("2024-03-31T23:59:59", since, until)
    assert not within("2023-12-31T23:59:59", since, until)
    assert not within("2024-04-01", since, until)
    assert within("1999-01-01", None, until)
    assert within("2099-01-01", since, None)


def test_within_excludes_undated_only_when_a_bound_is_set():
    since = parse_date("2024-01-01")
    assert within(None, None, None)
    assert within("not a date", None, None)
    assert not within(None, since, None)
    assert not within("", None, since)
    assert not within("not a date", since, None)


# ---------------------------------------------------------------- recency_boost


def test_decay_halves_every_half_life():
    assert decay(NOW, NOW, 10 * DAY) == 1.0
    assert decay(NOW - timedelta(days=10), NOW, 10 * DAY) == pytest.approx(0.5)
    assert decay(NOW - timedelta(days=30), NOW, 10 * DAY) == pytest.approx(0.125)
    assert decay(NOW + timedelta(days=5), NOW, 10 * DAY) == 1.0  # future counts as now
    assert decay(None, NOW, 10 * DAY) == 0.5


def test_relative_relevance_puts_the_top_at_one_and_the_median_at_zero():
    assert relative_relevance([4.0, 2.0, 1.0, 0.0, -3.0]) == pytest.approx([1.0, 1 / 3, 0.0, 0.0, 0.0])
    assert relative_relevance([2.0, 2.0]) == [1.0, 1.0]
    assert relative_relevance([]) == []


def _policies() -> tuple[list[Hit], dict[str, str | None]]:
    """Scores like the sample corpus's two remote-work policies: the 2021 chunk far ahead on text."""
    hits = [Hit("p2021", 4.0), Hit("p2025", 2.0), Hit("faq", 1.0)] + [Hit(f"x{i}", 0.0) for i in range(4)]
    dates = {"p2021": "2021-03-15", "p2025": "2025-09-01", "faq": "2026-11-30"}
    dates.update({f"x{i}": "2022-01-01" for i in range(4)})
    return hits, dates


def test_newer_revision_wins_within_the_weight_worked_example():
    # median 0 -> rel: p2021 1.0, p2025 0.5, faq 0.25. weight 0.6: near-top = rel >= 0.4 -> ref 2025-09-01.
    hits, dates = _policies()
    boosted = {h.chunk_id: h for h in recency_boost(hits, dates, 365 * DAY, 0.6, now=NOW.replace(year=2027))}
    age_2021 = (parse_date("2025-09-01") - parse_date("2021-03-15")).days / 365
    assert boosted["p2025"].score == pytest.approx(0.5 + 0.6 * 1.0)
    assert boosted["p2021"].score == pytest.approx(1.0 + 0.6 * 0.5 ** age_2021)
    assert boosted["faq"].score == pytest.approx(0.25 + 0.6 * 1.0)  # newer than ref: age 0
    order = [h.chunk_id for h in recency_boost(hits, dates, 365 * DAY, 0.6, now=NOW.replace(year=2027))]
    assert order[:3] == ["p2025", "p2021", "faq"]


def test_a_gap_larger_than_the_weight_keeps_relevance_first():
    hits, dates = _policies()
    order = [h.chunk_id for h in recency_boost(hits, dates, 365 * DAY, 0.3, now=NOW.replace(year=2027))]
    assert order[:2] == ["p2021", "p2025"]


def test_a_fresh_irrelevant_hit_never_reaches_the_top():
    hits = [Hit("old", 5.0), Hit("mid", 0.0), Hit("low", 0.0), Hit("fresh", 1.0)]
    dates = {"old": "1990-01-01", "mid": "1990-01-01", "low": "1990-01-01", "fresh": "2024-06-01"}
    for weight in (0.3, 0.5, 0.7):
        assert recency_boost(hits, dates, 30 * DAY, weight, now=NOW)[0].chunk_id == "old"


def test_ages_count_from_the_newest_near_top_hit_not_the_clock():
    hits = [Hit("a", 1.0), Hit("b", 1.0), Hit("z", 0.0)]
    dates = {"a": "2010-01-01", "b": "2011-01-01", "z": "2024-01-01"}
    boosted = {h.chunk_id: h for h in recency_boost(hits, dates, 365 * DAY, 0.5, now=NOW)}
    assert boosted["b"].explain["recency"] == (0, pytest.approx(1.0))
    assert boosted["a"].explain["recency"][1] == pytest.approx(0.5, abs=0.01)
    assert boosted["a"].explain["relevance"] == (1, 1.0)


def test_recency_works_on_negative_scores():
    hits = [Hit("old", -0.2), Hit("new", -0.3), Hit("worst", -3.0), Hit("worse", -3.0), Hit("bad", -2.9)]
    dates = {"old": "2001-01-01", "new": "2024-06-01", "worst": "2001-01-01", "worse": None, "bad": None}
    boosted = recency_boost(hits, dates, 30 * DAY, 0.5, now=NOW)
    assert [h.chunk_id for h in boosted][:2] == ["new", "old"]


def test_weight_zero_keeps_order_and_nothing_is_dropped():
    hits = [Hit("a", 3.0), Hit("b", 2.0), Hit("c", 2.0), Hit("d", -1.0)]
    dates = {"a": None, "b": "2024-06-01", "c": "1990-01-01", "d": "2024-06-01"}
    boosted = recency_boost(hits, dates, DAY, 0.0, now=NOW)
    assert [h.chunk_id for h in boosted] == ["a", "b", "c", "d"]
    assert [h.score for h in hits] == [3.0, 2.0, 2.0, -1.0]  # inputs untouched


def test_equal_scores_let_recency_alone_decide():
    hits = [Hit("a", 1.0), Hit("b", 1.0), Hit("c", 1.0)]
    dates = {"a": "2024-01-01", "b": "2024-05-31", "c": "2023-01-01"}
    boosted = recency_boost(hits, dates, 30 * DAY, 0.2, now=NOW)
    assert [h.chunk_id for h in boosted] == ["b", "a", "c"]


def test_undated_chunks_take_the_undated_decay_and_fall_back_to_chunk_date():
    chunk = Chunk("x", "dx", "text", date="2024-06-01")
    hits = [Hit("x", 1.0, chunk=chunk), Hit("y", 1.0)]
    boosted = {h.chunk_id: h for h in recency_boost(hits, {}, DAY, 1.0, now=NOW, undated=0.0)}
    assert boosted["x"].score == pytest.approx(2.0)
    assert boosted["y"].score == pytest.approx(1.0)


def test_future_dates_are_capped_at_now():
    hits = [Hit("a", 1.0), Hit("b", 1.0)]
    dates = {"a": "2024-05-22", "b": "2099-01-01"}
    boosted = {h.chunk_id: h for h in recency_boost(hits, dates, 10 * DAY, 1.0, now=NOW)}
    assert boosted["a"].explain["recency"][1] == pytest.approx(0.5)
    assert boosted["b"].explain["recency"][1] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("half_life", "weight", "undated"),
    [(DAY, -0.1, 0.5), (DAY, 1.5, 0.5), (DAY, float("nan"), 0.5), (0.0, 0.5, 0.5), (-DAY, 0.5, 0.5),
     (float("inf"), 0.5, 0.5), (DAY, 0.5, 2.0)],
)
def test_recency_rejects_bad_parameters(half_life, weight, undated):
    with pytest.raises(UsageError):
        recency_boost([Hit("a", 1.0)], {}, half_life, weight, now=NOW, undated=undated)


def test_recency_on_no_hits_is_empty():
    assert recency_boost([], {}, DAY, 0.5, now=NOW) == []
