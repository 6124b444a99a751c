#!/usr/bin/env python3
"""Build new.jsonl for probe 12 (Askerdale Hut Fellowship).

Stdlib only. Holds the question list, validates it against the corpus and
writes new.jsonl next to this file.

Checks:
  * kind counts: fact 15, reworded 15, yesno 16, near-miss 15;
  * yes/no balance: 8 x ["yes"], 8 x ["no"];
  * near-miss shape: answerable false, answers [], a question ending in "?",
    an anchor phrase that occurs in the corpus (so the question looks
    answerable) and, where given, a phrase that must NOT occur in the corpus;
  * every answerable non-yes/no question has at least one answer form that
    occurs case-insensitively in the corpus text;
  * ids p12-1 .. p12-61, unique questions.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
OUT = os.path.join(HERE, "new.jsonl")

EXPECTED = {"fact": 15, "reworded": 15, "yesno": 16, "near-miss": 15}

# (question, answers)
FACT = [
    ("In what year was the Askerdale Hut Fellowship founded?", ["1987"]),
    ("What is the altitude of Skelder Refuge?", ["1,104 m", "1,104", "1104"]),
    ("Who was elected Treasurer at the Annual General Meeting of 16 March 2024?", ["Declan Morrow"]),
    ("How many bunks does Gorran Hut have?", ["14", "fourteen"]),
    ("Which contractor will carry out the work on the Pellow Bothy roof?",
     ["Haldane & Pike Roofing", "Haldane & Pike", "Haldane and Pike"]),
    ("How much was the grant awarded by the Fellcraft Heritage Fund for the Pellow Bothy roof?",
     ["£22,000", "22,000", "22000"]),
    ("Under the current Hut Rules, what is the overnight fee at Gorran Hut for non-members?",
     ["£19", "19"]),
    ("Who is the Volunteer of the Year 2024?", ["Agnes Pollitt"]),
    ("Where was the Annual General Meeting of 16 March 2024 held?", ["Kelsby Village Hall"]),
    ("Under the current Hut Rules, what is the maximum group size at Gorran Hut?",
     ["8", "eight", "8 people"]),
    ("How much does exclusive hire of Gorran Hut cost per night?", ["£150", "150"]),
    ("How many members voted against the motion to raise the adult subscription at the 2024 AGM?",
     ["9", "nine"]),
    ("What email address should be used to book Gorran Hut?", ["bookings@askerdalehuts.org.uk"]),
    ("On what date is the 2024 Lantern Walk?",
     ["21 December 2024", "Saturday 21 December 2024", "21 December", "December 21"]),
    ("What is the registered charity number of the Askerdale Hut Fellowship?", ["1093416"]),
]

REWORDED = [
    ("When is the detector for the odourless poisonous gas at Gorran Hut supposed to be tried out?",
     ["first day of every month", "first day of each month", "first day of the month",
      "1st of every month", "1st of each month", "monthly"]),
    ("Below what room reading should the person keeping Gorran Hut get the wood burner going?",
     ["8 °C", "8°C", "8 degrees", "8 C", "8"]),
    ("How many separate givers had chipped in to the fundraising drive for the bothy's new covering "
     "by the end of September 2024?", ["203"]),
    ("Which inn hosted the gathering at which the organisation came into being?",
     ["Drover's Rest", "Drovers Rest", "Drover\u2019s Rest"]),
    ("Who looked after the organisation's finances before the person who took over that post in spring 2024?",
     ["Gillian Hart"]),
    ("Up to what date in early 2025 is the fourteen-bunk hut shut for upkeep?",
     ["14 February 2025", "14 February", "February 14"]),
    ("In which month are provisions airlifted to the Fellowship's highest shelter?", ["May"]),
    ("How many attendees backed fitting photovoltaic equipment to Gorran Hut?", ["31"]),
    ("What is the youngest age at which someone may take on a week-long hut-keeping stint?",
     ["21", "twenty-one"]),
    ("What sum did the organisation have set aside when 2023 came to an end?",
     ["£52,300", "52,300", "52300"]),
    ("What will the bothy's replacement top be clad with?",
     ["Brackmoor blue slate", "reclaimed Brackmoor blue slate", "Brackmoor slate"]),
    ("How much of her time did the woman honoured for her voluntary service give during 2024?",
     ["212 hours", "212"]),
    ("How far ahead of their stay can someone nowadays reserve a bunk at Gorran Hut?",
     ["90 days", "90"]),
    ("What proportion of the cost must be handed over up front when reserving Gorran Hut?",
     ["30%", "30 per cent", "30 percent", "30"]),
    ("How far from Gorran Hut does the source of its tap supply rise out of the ground?",
     ["150 metres", "150 m", "150"]),
]

YESNO = [
    ("Was the proposal to put up the yearly fee for grown-up members approved?", "yes"),
    ("Under the current Hut Rules, must a 15-year-old staying at Gorran Hut be accompanied by an adult?", "yes"),
    ("Had the Pellow Bothy roof appeal raised more than £10,000 by 30 September 2024?", "yes"),
    ("Could a walker take shelter in the refuge on Skelder Col in the middle of January?", "yes"),
    ("Under the Hut Rules 2022, were dogs allowed in the porch?", "yes"),
    ("Does the Fellcraft Heritage Fund grant cover more than half of the total cost of the Pellow Bothy roof project?", "yes"),
    ("Can you spend a night at Pellow Bothy without reserving a place in advance?", "yes"),
    ("Is Gorran Hut more than 900 metres above sea level?", "yes"),
    ("Under the current Hut Rules, can a dog sleep in the porch of Gorran Hut?", "no"),
    ("Is it allowed to build a campfire beside one of the huts?", "no"),
    ("Under the current Hut Rules, may one person stay five nights in a row at Gorran Hut?", "no"),
    ("Is it acceptable to keep spare gas cylinders indoors at a hut?", "no"),
    ("Did the 2024 AGM approve installing solar panels on Gorran Hut?", "no"),
    ("Did the Fellowship have more than 450 members on 30 September 2024?", "no"),
    ("Under the current Hut Rules, does someone who cancels a Gorran Hut booking 10 days before arrival get a full refund?", "no"),
    ("Could a 19-year-old member serve as a warden at Gorran Hut?", "no"),
]

# (question, anchor that must occur in the corpus, phrase that must not occur or None)
NEAR_MISS = [
    ("Who is the vice-chair of the Askerdale Hut Fellowship?", "Chair: Ruth Abernethy", "vice-chair"),
    ("Who was named Volunteer of the Year 2023?", "Volunteer of the Year 2024", "Volunteer of the Year 2023"),
    ("What was the overnight fee for members at Gorran Hut under the Hut Rules 2017?", "Hut Rules 2017", None),
    ("How many votes were cast against adopting the Hut Rules 2022?",
     "Adopted at the Annual General Meeting of 12 March 2022", None),
    ("How many members voted against installing solar panels at Pellow Bothy?",
     "SOLAR PANELS AT GORRAN HUT", "solar panels at Pellow"),
    ("What is the overnight fee for children at Gorran Hut?", "per person per night", "children pay"),
    ("What was the Fellowship's total income for 2022?", "Total income for 2023", "income for 2022"),
    ("In which month is Gorran Hut resupplied by helicopter?", "resupplied by helicopter",
     "Gorran Hut is resupplied"),
    ("How many volunteer hours did the Warden of the Year 2024, Callum Reyes, log?", "Warden of the Year 2024",
     "Callum logged"),
    ("On what date is the first work party of 2025?", "work party", "2025: work party"),
    ("What is the altitude of Kelsby?", "Kelsby", None),
    ("How many people took part in the 2024 Lantern Walk?", "Lantern Walk", None),
    ("Who was the first chair of the Askerdale Hut Fellowship?", "founded on 14 March 1987", "first chair"),
    ("What is the registered charity number of the Fellcraft Heritage Fund?", "Fellcraft Heritage Fund", None),
    ("How much had the Pellow Bothy roof appeal raised by 31 December 2024?",
     "By 30 September 2024 the appeal had raised", "31 December 2024"),
]


def load_corpus():
    texts = []
    for name in sorted(os.listdir(CORPUS)):
        with open(os.path.join(CORPUS, name), encoding="utf-8") as fh:
            texts.append(fh.read())
    return "\n".join(texts).lower()


def build():
    rows = []
    for q, a in FACT:
        rows.append({"question": q, "answers": a, "answerable": True, "kind": "fact"})
    for q, a in REWORDED:
        rows.append({"question": q, "answers": a, "answerable": True, "kind": "reworded"})
    for q, a in YESNO:
        rows.append({"question": q, "answers": [a], "answerable": True, "kind": "yesno"})
    for q, _anchor, _absent in NEAR_MISS:
        rows.append({"question": q, "answers": [], "answerable": False, "kind": "near-miss"})
    for i, r in enumerate(rows, 1):
        r["id"] = "p12-%d" % i
    return [{k: r[k] for k in ("question", "answers", "answerable", "id", "kind")} for r in rows]


def validate(rows, corpus):
    errors = []
    counts = {}
    for r in rows:
        counts[r["kind"]] = counts.get(r["kind"], 0) + 1
    if counts != EXPECTED:
        errors.append("kind counts %r != %r" % (counts, EXPECTED))

    yn = [r["answers"] for r in rows if r["kind"] == "yesno"]
    if yn.count(["yes"]) != 8 or yn.count(["no"]) != 8:
        errors.append("yes/no balance: %d yes, %d no" % (yn.count(["yes"]), yn.count(["no"])))

    qs = [r["question"] for r in rows]
    if len(set(q.lower() for q in qs)) != len(qs):
        errors.append("duplicate questions")
    ids = [r["id"] for r in rows]
    if ids != ["p12-%d" % i for i in range(1, len(rows) + 1)]:
        errors.append("bad ids")

    for r in rows:
        q = r["question"]
        if not q.endswith("?"):
            errors.append("%s: question does not end with '?'" % r["id"])
        if r["kind"] == "near-miss":
            if r["answerable"] or r["answers"] != []:
                errors.append("%s: near-miss must be unanswerable with []" % r["id"])
        elif r["kind"] == "yesno":
            if not r["answerable"] or r["answers"] not in (["yes"], ["no"]):
                errors.append("%s: bad yes/no answers" % r["id"])
        else:
            if not r["answerable"] or not r["answers"] or not all(a.strip() for a in r["answers"]):
                errors.append("%s: answerable question needs non-empty answers" % r["id"])
            elif not any(a.lower() in corpus for a in r["answers"]):
                errors.append("%s: no answer form occurs in corpus: %r" % (r["id"], r["answers"]))

    for q, anchor, absent in NEAR_MISS:
        if anchor.lower() not in corpus:
            errors.append("near-miss anchor missing from corpus: %r" % anchor)
        if absent is not None and absent.lower() in corpus:
            errors.append("near-miss phrase unexpectedly present in corpus: %r" % absent)
        if q.split()[0] not in ("Who", "What", "How", "When", "Where", "Which", "In", "On"):
            errors.append("near-miss should be a wh-question: %r" % q)
    return counts, errors


def main():
    corpus = load_corpus()
    rows = build()
    counts, errors = validate(rows, corpus)
    if errors:
        for e in errors:
            print("ERROR:", e, file=sys.stderr)
        sys.exit(1)
    with open(OUT, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print("wrote %s: %d questions %r" % (OUT, len(rows), counts))


if __name__ == "__main__":
    main()
