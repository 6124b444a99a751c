"""text/words.calendar_names: a timetable's abbreviated days and months are the days and months."""

from ragchain_cli.text.words import calendar_names, stem, stems_of


def test_abbreviated_days_in_a_row_of_days_are_the_days():
    assert stem("Saturdays") in stems_of("Route Mon-Fri Sat Sun 12 every 15 min")
    assert calendar_names("Open Tues and Thurs") == {stem("Tuesday"), stem("Thursday")}
    assert stem("March") in calendar_names("Jan to Mar")


def test_an_abbreviation_alone_is_a_word():
    assert calendar_names("Sat down on the bench") == set()
    assert calendar_names("Mar the view") == set()


def test_a_range_holds_the_days_inside_it_only_when_asked():
    assert stem("Wednesday") not in calendar_names("Mon-Fri 07:00-21:00")
    assert stem("Wednesday") in calendar_names("Mon-Fri 07:00-21:00", ranges=True)
    assert stem("Sunday") in calendar_names("Open Thurs-Mon", ranges=True)  # a week wraps
    assert stem("Tuesday") not in calendar_names("Open Thurs-Mon", ranges=True)
