#!/usr/bin/env python3
"""Build new.jsonl for probe11 (Ormvik Winter Swimming Society corpus).

Stdlib only. Validates kind counts, yes/no balance, near-miss shape and that
every answerable non-yes/no question has at least one answer form that occurs
(case-insensitively) somewhere in the corpus text.
"""
import json
import os
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
OUT = os.path.join(HERE, "new.jsonl")

# (kind, question, answers)  -- answers == [] means unanswerable (near-miss)
Q = [
    # ---------------- fact: documents' own wording ----------------
    ("fact", "When was the Ormvik Winter Swimming Society founded?",
     ["14 February 1987", "February 1987", "1987"]),
    ("fact", "Who is the sauna warden of the Ormvik Winter Swimming Society?",
     ["Tobias Ahlgren", "Ahlgren"]),
    ("fact", "How far is the bathing place at Kråkudden from Halverstad railway station?",
     ["2.4 kilometres", "2.4 km", "2.4"]),
    ("fact", "At what temperature does the electric backup heater in Grebe House switch off again?",
     ["78 °C", "78°C", "78 degrees", "78"]),
    ("fact", "How many people does the hot room of Grebe House seat?",
     ["14 people", "14", "fourteen"]),
    ("fact", "What is the annual fee for an adult member?",
     ["1,450 kr", "1450 kr", "1,450", "1450"]),
    ("fact", "What deposit is charged for each key card?",
     ["200 kr", "200"]),
    ("fact", "What is the total budget for the extension of the North Jetty?",
     ["185,000 kr", "185000 kr", "185,000", "185000"]),
    ("fact", "Who did Mirela Costa replace as safety officer?",
     ["Hans Dalby", "Dalby"]),
    ("fact", "When does registration for the Ormvik Ice Cup close?",
     ["20 January 2025", "20 January", "January 20"]),
    ("fact", "What is the entry fee for non-members at the Ormvik Ice Cup?",
     ["350 kr", "350"]),
    ("fact", "How long is the North Jetty?",
     ["28 metres", "28 m", "28"]),
    ("fact", "Who delivers the firewood for the sauna each October?",
     ["Bergqvist Forestry", "Bergqvist"]),
    ("fact", "How many swimmers may be in the ice hole at the same time?",
     ["four", "4"]),
    ("fact", "How long are the lines fitted to the lifebuoys?",
     ["30-metre", "30 metres", "30 m", "30"]),

    # ---------------- reworded: other words than the documents ----------------
    ("reworded", "What was the name of the hospital nurse who set up the winter swimming club?",
     ["Ingrid Moberg", "Moberg"]),
    ("reworded", "In which year did the club start belonging to the regional cold-water umbrella organisation?",
     ["2004"]),
    ("reworded", "How deep is the water beneath the far end of the pier the swimmers use?",
     ["3.2 metres", "3.2 m", "3.2"]),
    ("reworded", "Below what room temperature does the sauna's supplementary electric heating kick in?",
     ["62 °C", "62°C", "62 degrees", "62"]),
    ("reworded", "At what temperature does the anti-freeze heating in the washing area stop warming?",
     ["8 °C", "8°C", "8 degrees", "8"]),
    ("reworded", "How much does a visitor who is not a member pay to swim for one day?",
     ["120 kr", "120"]),
    ("reworded", "What extra charge is added when someone settles their yearly subscription too late?",
     ["150 kr", "150"]),
    ("reworded", "How much must someone pay if they cannot put in their required helper hours?",
     ["500 kr", "500"]),
    ("reworded", "How much money towards lengthening the pier came from the town's recreation grant?",
     ["60,000 kr", "60000 kr", "60,000", "60000"]),
    ("reworded", "How many people at the 2023 general meeting supported making the grown-up subscription more expensive?",
     ["58 votes", "58"]),
    ("reworded", "Under the present rules, how long at most may someone stay immersed when the lake is colder than two degrees?",
     ["90 seconds", "one and a half minutes", "1.5 minutes"]),
    ("reworded", "Under the present rules, how thick does the ice need to be before the swimming opening may be cut?",
     ["15 cm", "15 centimetres", "15"]),
    ("reworded", "How much birch arrives for the sauna stove each autumn?",
     ["22 cubic metres", "22"]),
    ("reworded", "At what time do the lamps over the pier turn themselves off?",
     ["22:00", "10 pm", "10 p.m."]),
    ("reworded", "What does the introductory programme for first-time winter swimmers cost?",
     ["480 kr", "480"]),

    # ---------------- yesno: 8 yes, 8 no ----------------
    ("yesno", "Is drinking alcohol in the car park at the bathing place forbidden?", ["yes"]),
    ("yesno", "Do sauna users have to bring their own towels?", ["yes"]),
    ("yesno", "Is the society a member of the Northern Lakes Cold Water Federation?", ["yes"]),
    ("yesno", "Is swimming after dark allowed when the floodlights are on and two members are standing on the jetty?", ["yes"]),
    ("yesno", "Was the proposal for a second ice hole for beginners passed to the board for investigation?", ["yes"]),
    ("yesno", "Do juniors get out of paying the joining fee?", ["yes"]),
    ("yesno", "Can the defibrillator be reached without a key card?", ["yes"]),
    ("yesno", "Does the society's board have seven members?", ["yes"]),
    ("yesno", "Can a nine-year-old swim in the ice hole if a parent is in the water with them?", ["no"]),
    ("yesno", "Is it fine to throw lake water on the sauna stones to make steam?", ["no"]),
    ("yesno", "May swimmers jump into the ice hole instead of using the ladder?", ["no"]),
    ("yesno", "Did the 2023 annual meeting approve the motion to allow dogs on the jetty?", ["no"]),
    ("yesno", "Can members swim when the mean wind speed is 15 m/s?", ["no"]),
    ("yesno", "Can any member use the motor ice saw?", ["no"]),
    ("yesno", "Does a member who resigns in January for non-medical reasons get the annual fee back?", ["no"]),
    ("yesno", "Does the society lend wetsuits to its members?", ["no"]),

    # ---------------- near-miss: looks answerable, is not ----------------
    ("near-miss", "Who is the deputy safety officer?", []),
    ("near-miss", "How much did the Northern Lakes Cold Water Federation grant towards the North Jetty extension?", []),
    ("near-miss", "In which year will the 12-metre jetty extension be completed?", []),
    ("near-miss", "What is the maximum time in the water when the water temperature is between 5 °C and 10 °C?", []),
    ("near-miss", "How many members did the society have at the end of the 2022/23 season?", []),
    ("near-miss", "How many votes were cast against the North Jetty extension at the 2023 annual meeting?", []),
    ("near-miss", "When does registration for the beginners' course close?", []),
    ("near-miss", "At what time does the Lantern Swim end?", []),
    ("near-miss", "Who was chair of the society before Petra Lundqvist?", []),
    ("near-miss", "How many swimmers were allowed in the ice hole at the same time under version 2 of the safety regulations?", []),
    ("near-miss", "How many cubic metres of firewood does the sauna stove burn in March?", []),
    ("near-miss", "How much does it cost to replace a lost key card?", []),
    ("near-miss", "How long is the blade of the hand ice saws?", []),
    ("near-miss", "How many participants can take part in the Lantern Swim?", []),
    ("near-miss", "What surplus did the society report for the 2023/24 season?", []),
]

EXPECTED = {"fact": 15, "reworded": 15, "yesno": 16, "near-miss": 15}


def corpus_text():
    parts = []
    for name in sorted(os.listdir(CORPUS)):
        with open(os.path.join(CORPUS, name), encoding="utf-8") as f:
            parts.append(f.read())
    return "\n".join(parts).lower()


def main():
    errors = []
    counts = Counter(k for k, _, _ in Q)
    for kind, n in EXPECTED.items():
        if counts.get(kind, 0) != n:
            errors.append(f"kind {kind}: {counts.get(kind, 0)} != {n}")
    if set(counts) - set(EXPECTED):
        errors.append(f"unknown kinds {set(counts) - set(EXPECTED)}")
    yn = Counter(a[0] for k, _, a in Q if k == "yesno")
    if yn.get("yes") != 8 or yn.get("no") != 8:
        errors.append(f"yes/no balance {dict(yn)}")
    if len({q for _, q, _ in Q}) != len(Q):
        errors.append("duplicate question text")

    text = corpus_text()
    rows = []
    for i, (kind, q, ans) in enumerate(Q, 1):
        answerable = kind != "near-miss"
        if answerable and not ans:
            errors.append(f"p11-{i}: answerable but no answers")
        if not answerable and ans:
            errors.append(f"p11-{i}: near-miss must have no answers")
        if kind == "yesno" and ans not in (["yes"], ["no"]):
            errors.append(f"p11-{i}: yes/no answer must be ['yes'] or ['no']")
        if answerable and kind != "yesno":
            if not any(a.lower() in text for a in ans):
                errors.append(f"p11-{i}: no answer form found in corpus: {ans}")
        rows.append({"question": q, "answers": ans, "answerable": answerable,
                     "id": f"p11-{i}", "kind": kind})

    if errors:
        for e in errors:
            print("ERROR:", e, file=sys.stderr)
        sys.exit(1)
    with open(OUT, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} questions to {OUT}: {dict(counts)}; yes/no {dict(yn)}")


if __name__ == "__main__":
    main()
