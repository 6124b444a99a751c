"""text/units.py: measures read with their unit, converted within a dimension, never across."""

from ragchain_cli.text.units import Measure, convert, measures, met_by_measure, same_quantity


def test_measures_read_degrees_words_and_abbreviations():
    assert measures("Bake at 180 °C for 40 minutes") == [Measure(180.0, "celsius", "temperature"),
                                                         Measure(40.0, "minute", "time")]
    assert measures("350 degrees Fahrenheit") == [Measure(350.0, "fahrenheit", "temperature")]
    assert [m.unit for m in measures("a 12 km walk, 3.5 miles, 1,200 g and 2 lbs")] == \
        ["kilometre", "mile", "gramme", "pound"]


def test_letters_are_no_units():
    assert measures("Vitamin C, 12 C, Block 3 F") == []
    assert measures("3 ms, in 1850 in, one of the boats") == []


def test_durations_in_digits_or_words_convert():
    (days,) = measures("logs are kept for 90 days")
    (months,) = measures("for less than six months")
    assert months == Measure(6.0, "month", "time") and round(convert(days, "month"), 2) == 2.96
    assert convert(days, "mile") is None


def test_conversion_stays_in_one_dimension():
    (celsius,) = measures("180 °C")
    assert round(convert(celsius, "fahrenheit")) == 356
    assert convert(celsius, "mile") is None
    (km,) = measures("8 km")
    assert same_quantity(Measure(5.0, "mile", "length"), km)
    assert not same_quantity(Measure(6.0, "mile", "length"), km)


def test_a_question_unit_or_measure_is_met_in_any_unit():
    passage = ["Bake the loaf at 180 °C for 50 minutes."]
    assert met_by_measure("Fahrenheit", "in Fahrenheit?", passage)
    assert met_by_measure("350", "How long at 350 °F?", passage)
    assert not met_by_measure("250", "How long at 250 °F?", passage)
    assert not met_by_measure("Fahrenheit", "in Fahrenheit?", ["Fired for six hours."])
    assert not met_by_measure("Ashby", "Where is Ashby?", passage)
