"""A small versioned corpus the tests (and bench/versions_bench.py) write: six document families
with two or three revisions each, where a fact changed between revisions, plus documents that
must NOT group (a meeting series with the same name and other topics, similar titles).

Everything is fictional (the Kestrel Valley Water Trust). QUESTIONS name the newest revision and
the words its answer must contain; `older` are the superseded revisions. With the default search an
older revision ranks first for half of the questions (bench/RESULTS.md, issue 32).
"""

from __future__ import annotations

from pathlib import Path

ORG = "the Kestrel Valley Water Trust"


def _md(title: str, date: str, body: str) -> str:
    return f"---\ntitle: {title}\ndate: {date}\n---\n\n# {title}\n\n{body.strip()}\n"


def _hours(saturday: str, sunday: str, date: str, title: str) -> str:
    return _md(title, date, f"""
These are the opening hours of the reading room and archive of {ORG} at the Millbrook depot.
The reading room holds the river survey maps, the borehole logs and the annual water quality reports.

## Weekdays

From Monday to Friday the reading room opens at 09:00 and closes at 18:00. The archive desk closes
for lunch between 12:30 and 13:30.

## Weekends

On Saturdays the reading room closes at {saturday}. {sunday}

## Holidays

The reading room is closed on public holidays and between Christmas and New Year.
""")


def _mileage(rate: str, date: str, version: str, extra: str) -> str:
    return _md(f"Travel Expense Policy {version}", date, f"""
This policy explains which travel costs {ORG} refunds to staff and volunteers and how to claim them.

## Private cars

Staff who use a private car for Trust business are refunded a mileage rate of **{rate} per kilometre**.
The distance is measured from the Millbrook depot or from home, whichever is shorter. {extra}

## Public transport and lodging

Second-class train tickets and bus fares are refunded in full. Lodging is refunded up to the limit
set by the finance office each year.

## How to claim

Submit the expense form with receipts within two months of the trip.
""")


def _password(length: str, date: str, rotation: str) -> str:
    return _md("IT Password Standard", date, f"""
This standard sets the rules for passwords on all computer accounts of {ORG}.

## Length and content

Every password must be at least **{length} characters** long. Passphrases made of several ordinary
words are encouraged. Do not reuse a password from another service.

## Changing passwords

{rotation}

## Lost passwords

Call the IT desk on extension 240. The desk checks your identity before it resets a password.
""")


def _leave(weeks: str, date: str, title: str, notice: str) -> str:
    return _md(title, date, f"""
This policy describes parental leave for employees of {ORG}.

## Paid leave

Each parent may take **{weeks} weeks of paid parental leave** within the first year after a birth
or adoption, at full salary. The weeks may be taken in up to three blocks.

## Notice

{notice}

## Returning to work

On return, employees may ask to work part time for up to twelve months.
""")


def _fume(interval: str, date: str, title: str) -> str:
    return _md(title, date, f"""
These rules apply to the water chemistry laboratory of {ORG}.

## Protective equipment

Lab coats and safety goggles are worn at all times in the laboratory. Gloves are changed between samples.

## Fume hoods

Acids are opened and diluted only inside a fume hood. The airflow of every fume hood is checked
**{interval}** by the laboratory manager, and the date of the last check is written on the hood.

## Waste

Acid waste goes into the labelled white containers, never down the sink.
""")


def _wifi(interval: str, date: str, title: str) -> str:
    return _md(title, date, f"""
Visitors to the Millbrook depot of {ORG} can use the guest wireless network called KVWT-Guest.

## Getting the password

The guest password is printed on the card at the reception desk. Reception staff can also read it out
to visitors on request. The guest network gives internet access only; it cannot reach the file server,
the printers or the telemetry network of the pumping stations.

## How often it changes

The guest password changes **{interval}**, on Monday morning, and the reception card is replaced the same day.

## Limits

Downloads are limited to 2 GB per device and day. Streaming video is blocked during office hours.
""")


def _meeting(date: str, body: str) -> str:
    return f"KESTREL VALLEY WATER TRUST - STAFF MEETING NOTES\nDate: {date}\n\n{body.strip()}\n"


FILES: dict[str, str] = {
    "reading-room-hours-2022.md": _hours("13:00", "On Sundays the reading room is closed.", "2022-02-01",
                                         "Reading Room Opening Hours 2022"),
    "reading-room-hours-2024.md": _hours("17:00", "On Sundays the reading room opens from 11:00 to 15:00.",
                                         "2024-04-15", "Reading Room Opening Hours 2024"),
    "travel-expenses-v1.md": _mileage("0.30 euros", "2019-05-01", "v1", ""),
    "travel-expenses-v2.md": _mileage("0.35 euros", "2021-07-01", "v2", "Parking fees are refunded too."),
    "travel-expenses-v3.md": _mileage("0.42 euros", "2024-01-01", "v3",
                                      "Parking fees are refunded too. Electric cars get the same rate."),
    "it-password-standard-2020.md": _password("8", "2020-03-01", "Passwords must be changed every 90 days."),
    "it-password-standard-2023.md": _password("12", "2023-03-01", "Passwords must be changed once a year."),
    "it-password-standard-2025.md": _password("14", "2025-06-01",
                                              "Passwords are changed only when there is a sign of misuse."),
    "parental-leave.md": _leave("12", "2018-09-01", "Parental Leave Policy",
                                "Tell your manager at least eight weeks before the leave starts."),
    "parental-leave-revised.md": _leave("16", "2023-09-01", "Parental Leave Policy (revised)",
                                        "Tell your manager at least six weeks before the leave starts."),
    "lab-safety-rules-2019.md": _fume("once a year", "2019-01-10", "Laboratory Safety Rules, 2019 edition"),
    "lab-safety-rules-2024.md": _fume("every six months", "2024-01-10", "Laboratory Safety Rules, 2024 edition"),
    "guest-wifi.md": _wifi("every month", "2022-06-01", "Guest Wi-Fi"),
    "wifi-for-visitors.md": _wifi("every week", "2025-02-01", "Wireless Network for Visitors"),
    # documents that must not group
    "staff-meeting-2025-01-14.txt": _meeting("14 January 2025", """
1. Canteen. The canteen will close for two weeks in February while the kitchen floor is replaced.
Staff are asked to bring packed lunches; the kettle in the library stays available.
2. Roof. The flat roof of the workshop leaks above the pipe store. A contractor will inspect it on
22 January and the pipe store will be moved to the garage until the repair is done.
"""),
    "staff-meeting-2025-03-11.txt": _meeting("11 March 2025", """
1. New survey boat. The board approved the purchase of an aluminium survey boat with a 40 hp outboard
engine for the reservoir sonar surveys. Delivery is expected in May.
2. Volunteer day. The spring river clean-up with volunteers takes place on 5 April, starting at the
Hollins Bridge car park. Gloves and litter pickers are provided.
"""),
    "boat-safety-checklist.md": _md("Boat Safety Checklist", "2024-05-01", """
Before every trip check the life jackets, the radio, the fuel level and the kill cord of the outboard
engine. Never take a boat out alone on the reservoir.
"""),
    "boat-safety-training-schedule.md": _md("Boat Safety Training Schedule", "2025-05-01", """
Boat safety training runs every April and September at the reservoir jetty. New staff book a place
through the training officer; the course lasts one day and ends with a capsize drill.
"""),
}

GROUPS = [
    {"reading-room-hours-2022.md", "reading-room-hours-2024.md"},
    {"travel-expenses-v1.md", "travel-expenses-v2.md", "travel-expenses-v3.md"},
    {"it-password-standard-2020.md", "it-password-standard-2023.md", "it-password-standard-2025.md"},
    {"parental-leave.md", "parental-leave-revised.md"},
    {"lab-safety-rules-2019.md", "lab-safety-rules-2024.md"},
    {"guest-wifi.md", "wifi-for-visitors.md"},
]

QUESTIONS = [
    {"question": "What time does the reading room close on Saturdays?", "newest": "reading-room-hours-2024.md",
     "answer": ["17:00", "5 pm", "5pm"]},
    {"question": "Is the reading room open on Sundays?", "newest": "reading-room-hours-2024.md",
     "answer": ["11:00", "15:00"]},
    {"question": "What is the mileage rate for using a private car?", "newest": "travel-expenses-v3.md",
     "answer": ["0.42"]},
    {"question": "What is the minimum password length?", "newest": "it-password-standard-2025.md",
     "answer": ["14"]},
    {"question": "How often must passwords be changed?", "newest": "it-password-standard-2025.md",
     "answer": ["misuse"]},
    {"question": "How many weeks of paid parental leave can a parent take?", "newest": "parental-leave-revised.md",
     "answer": ["16", "sixteen"]},
    {"question": "How much notice must be given before parental leave?", "newest": "parental-leave-revised.md",
     "answer": ["six weeks", "6 weeks"]},
    {"question": "How often is the airflow of the fume hoods checked?", "newest": "lab-safety-rules-2024.md",
     "answer": ["six months", "6 months"]},
    {"question": "How often does the guest Wi-Fi password change?", "newest": "wifi-for-visitors.md",
     "answer": ["week"]},
    # issue 32: questions worded as the newest revision words it, so that the search ranks an older
    # revision first for half of the questions (the six above), the newest first for the other half
    {"question": "Do electric cars get the same mileage rate?", "newest": "travel-expenses-v3.md",
     "answer": ["0.42", "same rate"]},
    {"question": "How many weeks of parental leave are paid at full salary?", "newest": "parental-leave-revised.md",
     "answer": ["16", "sixteen"]},
    {"question": "How often must the laboratory manager check the fume hoods?", "newest": "lab-safety-rules-2024.md",
     "answer": ["six months", "6 months"]},
]


def older_versions(name: str) -> set[str]:
    group = next((g for g in GROUPS if name in g), {name})
    return group - {name}


def write(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder
