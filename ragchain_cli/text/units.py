"""Units of measure: a quantity is the same whatever unit states it ("180 °C" is "356 °F").

A measure is a number (in digits, or a number word: "six months") followed by a unit of
temperature, length, mass, volume or time (`measures`); a question may also name a unit alone ("in Fahrenheit", "how many miles"). Units
of one dimension convert into each other (`convert`), so a question's "350 °F" is met by a
passage's "180 °C", and a question that asks for Fahrenheit by a passage that gives Celsius.
A bare "C" or "F" is a unit only after a degree sign or "degrees" ("Vitamin C" is none); units
whose size differs by country (pints, gallons, cups) are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .words import NUMBER_WORDS

# name -> (dimension, size in the dimension's base unit); temperatures are converted apart.
_SIZES = {
    "mm": ("length", 0.001), "millimetre": ("length", 0.001), "millimeter": ("length", 0.001),
    "cm": ("length", 0.01), "centimetre": ("length", 0.01), "centimeter": ("length", 0.01),
    "m": ("length", 1.0), "metre": ("length", 1.0), "meter": ("length", 1.0),
    "km": ("length", 1000.0), "kilometre": ("length", 1000.0), "kilometer": ("length", 1000.0),
    "inch": ("length", 0.0254), "ft": ("length", 0.3048), "foot": ("length", 0.3048),
    "feet": ("length", 0.3048), "yd": ("length", 0.9144), "yard": ("length", 0.9144),
    "mile": ("length", 1609.344), "mi": ("length", 1609.344),
    "mg": ("mass", 0.001), "milligram": ("mass", 0.001), "g": ("mass", 1.0), "gram": ("mass", 1.0),
    "gramme": ("mass", 1.0), "kg": ("mass", 1000.0), "kilogram": ("mass", 1000.0), "kilo": ("mass", 1000.0),
    "oz": ("mass", 28.349523), "ounce": ("mass", 28.349523), "lb": ("mass", 453.59237),
    "pound": ("mass", 453.59237), "tonne": ("mass", 1e6),
    "ml": ("volume", 0.001), "millilitre": ("volume", 0.001), "milliliter": ("volume", 0.001),
    "l": ("volume", 1.0), "litre": ("volume", 1.0), "liter": ("volume", 1.0),
    # durations ("kept for 90 days" against "less than six months"); a month and a year are their mean
    "second": ("time", 1.0), "sec": ("time", 1.0), "minute": ("time", 60.0), "min": ("time", 60.0),
    "hour": ("time", 3600.0), "hr": ("time", 3600.0), "day": ("time", 86400.0), "week": ("time", 604800.0),
    "fortnight": ("time", 1209600.0), "month": ("time", 2629800.0), "year": ("time", 31557600.0),
    "yr": ("time", 31557600.0),
}
_TEMPERATURES = {"c": "celsius", "celsius": "celsius", "centigrade": "celsius", "f": "fahrenheit",
                 "fahrenheit": "fahrenheit", "k": "kelvin", "kelvin": "kelvin"}
_TO_CELSIUS = {"celsius": lambda v: v, "fahrenheit": lambda v: (v - 32) * 5 / 9, "kelvin": lambda v: v - 273.15}
_FROM_CELSIUS = {"celsius": lambda v: v, "fahrenheit": lambda v: v * 9 / 5 + 32, "kelvin": lambda v: v + 273.15}
# A number, then a unit: a degree sign or "degrees" and a scale, or a word ("miles", "kg").
_MEASURE = re.compile(r"(?<![\w.,])(?P<value>\d[\d,]*(?:\.\d+)?)\s*(?P<unit>(?:°|º|degrees?\s+)\s*[A-Za-z]+|[A-Za-z]+)\b")
_NUMBER_WORD = re.compile(r"\b(?:" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")\b(?=\s+[A-Za-z])",
                          re.IGNORECASE)
TOLERANCE = 0.03  # a converted value is usually rounded: "180 °C" is given as "350 °F" (356)


@dataclass(frozen=True)
class Measure:
    value: float
    unit: str  # the unit's full name ("celsius", "kilometre", "pound")
    dimension: str  # temperature, length, mass or volume


def unit(word: str) -> tuple[str, str] | None:
    """(full name, dimension) of a unit word or abbreviation ("°F", "miles", "kg"), else None."""
    lower = re.sub(r"^(?:°|º|degrees?)\s*", "", word.strip().lower())
    if lower in _TEMPERATURES:
        return _TEMPERATURES[lower], "temperature"
    plural = [lower[:-1], lower[:-2] if lower.endswith("es") else ""] if lower.endswith("s") and len(lower) > 3 else []
    for name in (lower, *plural, {"feet": "foot", "lbs": "lb"}.get(lower, "")):
        if name in _SIZES:
            return _full(name), _SIZES[name][0]
    return None


def _full(name: str) -> str:
    """The longest name of the same size and dimension ("km" -> "kilometre")."""
    same = [n for n, size in _SIZES.items() if size == _SIZES[name] and n not in ("feet", "meter", "liter")]
    return max(same, key=len)


def measures(text: str) -> list[Measure]:
    """The quantities a text states with a unit: "Bake at 180 °C" -> [Measure(180, celsius, temperature)],
    "for six months" -> [Measure(6, month, time)]."""
    found = []
    for match in _MEASURE.finditer(_NUMBER_WORD.sub(lambda m: NUMBER_WORDS[m.group().lower()], text)):
        word = match.group("unit")
        if len(word) == 1 and word.upper() in "CFK":
            continue  # "Vitamin C", "Block F": a scale letter needs a degree sign
        named = unit(word)
        if named is not None:
            found.append(Measure(float(match.group("value").replace(",", "")), *named))
    return found


def convert(measure: Measure, to: str) -> float | None:
    """The measure's value in the unit `to` (a full name), or None across dimensions."""
    if measure.dimension == "temperature":
        return _FROM_CELSIUS[to](_TO_CELSIUS[measure.unit](measure.value)) if to in _FROM_CELSIUS else None
    target = next((size for name, (dim, size) in _SIZES.items() if name == to and dim == measure.dimension), None)
    return None if target is None else measure.value * _SIZES[measure.unit][1] / target


def same_quantity(asked: Measure, given: Measure) -> bool:
    """Does `given`, converted into the unit of `asked`, round to it (within TOLERANCE)?"""
    value = convert(given, asked.unit)
    return value is not None and abs(value - asked.value) <= TOLERANCE * max(abs(asked.value), 1.0)


def met_by_measure(term: str, question: str, passages: list[str]) -> bool:
    """Is the question's `term` a unit or a measured number that a passage gives in any unit? A unit
    named alone ("in Fahrenheit") is met by a quantity of its dimension; a number with its unit
    ("350 °F") by the same quantity ("180 °C")."""
    given = [m for passage in passages for m in measures(passage)]
    if not term[:1].isdigit():
        named = unit(term)
        return named is not None and any(m.dimension == named[1] for m in given)
    asked = [m for m in measures(question) if f"{m.value:g}" == term.replace(",", "")]
    return any(same_quantity(a, g) for a in asked for g in given)
