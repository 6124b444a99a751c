#!/usr/bin/env python3
"""Generate and validate probe10's questions.jsonl and new.jsonl (stdlib only).

Run from anywhere: python3 make_questions.py
Each answerable question carries the file and the exact answering sentence(s);
the script checks that the quote occurs in the file (whitespace-normalised, HTML
tags/script/style stripped) and that every answer string occurs in the file,
case-insensitively, unless it is listed as a paraphrase variant (yes/no answers
and unit rewrites such as "11 degrees"), which the note then names.
"""
import json, os, re, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")

# (kind, question, answers, file, quote, paraphrase_variants)  for answerable
# (kind, question, None, None, why_unanswerable, None)         for near-miss
Q = [
# ---------------- fact ----------------
("fact", "In what year did the Kestrelford Tool Library open?",
 ["2012", "March 2012"], "about-us.md",
 "It opened in March 2012 in a disused railway lamp room beside Kestrelford Halt with 86 tools and 19 members.", []),
("fact", "How many tools did the Kestrelford Tool Library have when it opened?",
 ["86", "86 tools"], "about-us.md",
 "It opened in March 2012 in a disused railway lamp room beside Kestrelford Halt with 86 tools and 19 members.", []),
("fact", "How many hours a week does the library's coordinator work?",
 ["24", "24 hours", "24 hours a week"], "about-us.md",
 "Priya Hallworth has been the coordinator since January 2021 and works 24 hours a week; before that the coordinator post was unpaid and held by a rota of directors.", []),
("fact", "What is the floor area of the Brackenhythe Depot?",
 ["85 square metres", "85", "85 m2", "85 square meters"], "depots-guide.txt",
 "The Brackenhythe Depot is a single basement room with a floor area of 85 square metres.", ["85 m2", "85 square meters"]),
("fact", "At what temperature does the storage hall heating at the Osier Lane Depot switch off?",
 ["11 °C", "11", "11 degrees", "11 C", "when it reaches 11 °C"], "depots-guide.txt",
 "Heating: the storage hall heating switches on when the hall falls below 7 °C and off again when it reaches 11 °C.", ["11 degrees", "11 C"]),
("fact", "How many people may be in the Metal Bench Room at once?",
 ["4", "no more than 4", "4 people", "four"], "workshop-safety.txt",
 "No more than 4 people may be in the Metal Bench Room at once, including the Workshop Lead.", ["four"]),
("fact", "What payload can Wren carry?",
 ["120 kg", "up to 120 kg", "120"], "deliveries-and-vehicles.md",
 "Wren can carry a payload of up to 120 kg and has a range of about 40 km on a full battery.", []),
("fact", "What is the late fee per item per day under the current lending policy?",
 ["60p", "60p per item per day", "60 pence"], "lending-policy-2024.md",
 "The late fee is 60p per item per day, capped at £12 per item.", ["60 pence"]),
("fact", "How many steps lead down to the Brackenhythe Depot?",
 ["11", "11 steps", "a staircase of 11 steps", "eleven"], "depots-guide.txt",
 "Access: the basement is reached by a staircase of 11 steps and there is no lift.", ["eleven"]),
("fact", "Who chaired the 2023 Annual General Meeting?",
 ["Lionel Varga"], "agm-minutes-2023.txt",
 "Chair: Lionel Varga (chair of the board).", []),
("fact", "What was the library's income in the year to 31 March 2023?",
 ["£48,300", "48,300", "£48300", "48300"], "agm-minutes-2023.txt",
 "Income was £48,300 and expenditure was £45,900, giving a surplus of £2,400.", ["£48300", "48300"]),
("fact", "When does the last Timber Room booking of the evening end?",
 ["7.30 pm", "7.30", "7:30 pm", "7:30"], "workshop-safety.txt",
 "The last booking of the evening in the Timber Room ends at 7.30 pm, so that the room can be swept before the depot closes at 8 pm.", ["7:30 pm", "7:30"]),
("fact", "How long is the basic workshop induction?",
 ["90 minutes", "90-minute", "90", "an hour and a half"], "workshop-safety.txt",
 "Every member must complete the 90-minute basic induction, which earns a green card (Level 1), before using any workshop tool.", ["90 minutes", "an hour and a half"]),
("fact", "What was the standard annual membership fee under the 2021 lending policy?",
 ["£30", "30"], "lending-policy-2021.md",
 "The annual membership fee is £30 for a standard membership and £12 for a concession membership.", []),
("fact", "What is the maximum number of items a member may have on loan at one time under the current lending policy?",
 ["6", "6 items", "at most 6 items", "six"], "lending-policy-2024.md",
 "Members may have at most 6 items on loan at any one time, of which no more than 3 may be power tools.", ["six"]),
# ---------------- reworded ----------------
("reworded", "How cold must the main depot's storage space get before its heaters come on?",
 ["7 °C", "below 7 °C", "7", "7 degrees", "7 C"], "depots-guide.txt",
 "Heating: the storage hall heating switches on when the hall falls below 7 °C and off again when it reaches 11 °C.", ["7 degrees", "7 C"]),
("reworded", "At what level of moisture in the air does the drying machine at the south-side branch shut down?",
 ["55 percent", "55", "55%", "55 per cent"], "depots-guide.txt",
 "Damp control: because the basement is below ground, a dehumidifier runs when the relative humidity rises above 65 percent and stops when it falls to 55 percent.", ["55%", "55 per cent"]),
("reworded", "How many people had signed up on the day the cooperative first started lending?",
 ["19", "19 members", "nineteen"], "about-us.md",
 "It opened in March 2012 in a disused railway lamp room beside Kestrelford Halt with 86 tools and 19 members.", ["nineteen"]),
("reworded", "What is the youngest a person can be to volunteer behind the lending desk?",
 ["16", "16 years old", "sixteen"], "volunteer-roles.html",
 "Counter Stewards work shifts of 3 hours and are asked to commit to at least 2 shifts a month. The minimum age is 16.", ["16 years old", "sixteen"]),
("reworded", "How far can the electric three-wheeler travel before its battery needs recharging?",
 ["about 40 km", "40 km", "40", "40 kilometres"], "deliveries-and-vehicles.md",
 "Wren can carry a payload of up to 120 kg and has a range of about 40 km on a full battery.", ["40 kilometres"]),
("reworded", "How far can the library's van go on one charge during the colder months?",
 ["about 150 km", "150 km", "150", "150 kilometres"], "deliveries-and-vehicles.md",
 "It can carry a payload of up to 650 kg and has a range of about 190 km on a full charge in summer, falling to about 150 km in winter.", ["150 kilometres"]),
("reworded", "What was the tally when members backed the subscription rise in November 2023?",
 ["214 votes to 37", "214 to 37", "214", "214-37"], "agm-minutes-2023.txt",
 "The original resolution was then passed by 214 votes to 37, with 14 abstentions.", ["214 to 37", "214-37"]),
("reworded", "Under the present rules, for how long can someone keep a borrowed power drill or other electric machine?",
 ["7 days", "7", "seven days", "a week"], "lending-policy-2024.md",
 "The standard loan period is now 10 days. Power tools are still lent for 7 days, because demand for them is highest.", ["seven days", "a week"]),
("reworded", "Under the latest rules, how long may an ordinary (non-powered) item be kept out?",
 ["10 days", "10", "ten days"], "lending-policy-2024.md",
 "The standard loan period is now 10 days. Power tools are still lent for 7 days, because demand for them is highest.", ["ten days"]),
("reworded", "How far from the main site will the pedal-assisted delivery vehicle bring tools?",
 ["3 km", "within 3 km", "3", "3 kilometres"], "deliveries-and-vehicles.md",
 "Wren delivers only within 3 km of Osier Lane, which covers the town centre, Millhythe and most of Tanners Green.", ["3 kilometres"]),
("reworded", "Where should people gather after evacuating the basement branch in a fire?",
 ["the lych gate of St Aldhelm's church", "lych gate", "St Aldhelm's church lych gate"], "depots-guide.txt",
 "Fire assembly point: the lych gate of St Aldhelm's church.", ["St Aldhelm's church lych gate"]),
("reworded", "How much warning must the directors give members before altering the times the depots are open?",
 ["28 days", "at least 28 days", "28"], "about-us.md",
 "The board may change opening hours and workshop rules on its own, but must tell members at least 28 days before a change takes effect.", []),
("reworded", "What share of the cooperative's 2022-23 revenue came from the local authority?",
 ["21 percent", "21", "21%", "21 per cent"], "about-us.md",
 "In the 2022-23 financial year, membership fees made up 62 percent of our income and grants from Kestrelford Borough Council made up 21 percent; the rest came from late fees, the repair cafe and donations.", ["21%", "21 per cent"]),
("reworded", "How often are the eye-rinsing bottles in the workshops swapped for new ones?",
 ["every 6 months", "6 months", "twice a year", "six months"], "workshop-safety.txt",
 "The first aid kit in each room is checked monthly, and the eyewash bottles are replaced every 6 months whether or not they have been opened.", ["twice a year", "six months"]),
("reworded", "Under the 2021 rules, how many things could one member have borrowed simultaneously?",
 ["5", "5 items", "at most 5 items", "five"], "lending-policy-2021.md",
 "Members may have at most 5 items on loan at any one time.", ["five"]),
# ---------------- yesno ----------------
("yesno", "Can a 17-year-old use the table saw if a Workshop Lead supervises them?",
 ["no"], "workshop-safety.txt",
 "Under-18s must not use the table saw or the bandsaw under any circumstances, even when supervised.", None),
("yesno", "Is welding allowed in the Metal Bench Room?",
 ["no"], "workshop-safety.txt",
 "Welding is not allowed in the Metal Bench Room at any time, because the room has no fume extraction.", None),
("yesno", "Can a 16-year-old member use the Metal Bench Room pillar drill while a Workshop Lead is in the room?",
 ["yes"], "workshop-safety.txt",
 "Members aged 16 or 17 may use the Metal Bench Room pillar drill, but only while a Workshop Lead is present in the room.", None),
("yesno", "Can a petrol-powered tool with an empty tank be carried on Wren?",
 ["no"], "deliveries-and-vehicles.md",
 "Petrol-powered tools must not be carried on Wren, whether or not the tank is empty, because fuel vapour collects in the closed front box.", None),
("yesno", "Is it true that the library never lends chainsaws?",
 ["yes"], "lending-policy-2024.md",
 "The library never lends chainsaws, nail guns that use explosive cartridges, or any tool that requires a licence to operate.", None),
("yesno", "Do Counter Stewards need a DBS check?",
 ["no"], "volunteer-roles.html",
 "Counter Stewards do not need a DBS check, because they are never left alone with under-18s.", None),
("yesno", "Must a Workshop Lead have an enhanced DBS check?",
 ["yes"], "volunteer-roles.html",
 "Every Workshop Lead must hold a current first aid certificate, renewed every 3 years, and must have an enhanced DBS check, because Workshop Leads supervise members aged 16 and 17.", None),
("yesno", "Is there on-site parking at the Brackenhythe Depot?",
 ["no"], "depots-guide.txt",
 "Parking: there is no on-site parking.", None),
("yesno", "Can a member return an item to a different depot from the one they borrowed it from?",
 ["yes"], "depots-guide.txt",
 "Members may borrow from either depot and may return an item to either depot, whatever depot it came from.", None),
("yesno", "Should gloves be worn when using the wood lathe?",
 ["no"], "workshop-safety.txt",
 "Gloves must not be worn when using the pillar drill or the wood lathe, because a glove can be caught and pull the hand into the machine.", None),
("yesno", "Can the van Maud be charged from a domestic socket?",
 ["no"], "deliveries-and-vehicles.md",
 "It must never be charged from a domestic socket, at the depot or anywhere else.", None),
("yesno", "Is the Osier Lane Depot step-free?",
 ["yes"], "depots-guide.txt",
 "Access: the building is step-free through the side ramp on Tanners Passage.", None),
("yesno", "Under the current lending policy, can a loan be renewed twice?",
 ["yes"], "lending-policy-2024.md",
 "A loan may be renewed twice, each time for the same period as the original loan, as long as nobody else has reserved the item.", None),
("yesno", "Are brazing and soldering allowed in the Metal Bench Room?",
 ["yes"], "workshop-safety.txt",
 "Brazing and soldering with a hand iron are allowed.", None),
("yesno", "Does the library accept sponsorship from tool manufacturers?",
 ["no"], "about-us.md",
 "We do not accept sponsorship from tool manufacturers or retailers, because members must be able to trust that our recommendations are independent.", None),
("yesno", "Is it true that members must not park on Vicarage Walk?",
 ["yes"], "depots-guide.txt",
 "Members must not park on Vicarage Walk, which is a residents-only street.", None),
("yesno", "Under the current lending policy, can a member have 4 power tools on loan at the same time?",
 ["no"], "lending-policy-2024.md",
 "Members may have at most 6 items on loan at any one time, of which no more than 3 may be power tools.", None),
("yesno", "Under the current lending policy, are late fees waived for days the member was in hospital?",
 ["yes"], "lending-policy-2024.md",
 "Late fees are not charged for days when the member was in hospital.", None),
# ---------------- near-miss (unanswerable) ----------------
("near-miss", "What is the floor area of the Copperdale depot?", None, None,
 "Copperdale is only a proposed third depot (no lease signed), and no floor area is given for it. Distractors: [depots-guide.txt] 'a floor area of 210 square metres' (Osier Lane) and 'a floor area of 85 square metres' (Brackenhythe); [agm-minutes-2023.txt] 'a third depot in the former library van garage on Copperdale Road. No lease has been signed.'", None),
("near-miss", "How many tools did the library have when it moved to Osier Lane in 2016?", None, None,
 "Tool counts are given only for opening day in 2012 and for the end of 2023; nothing for 2016. Distractors: [about-us.md] 'It opened in March 2012 ... with 86 tools and 19 members.' and 'At the end of 2023 the catalogue held 2,340 tools'.", None),
("near-miss", "How many penalty points on their licence rule out a Trike Rider?", None, None,
 "Parallel entity: the penalty-point limit is stated only for Van Drivers; Trike Riders need no licence and no limit is given. Distractor: [volunteer-roles.html] 'Drivers with more than 6 penalty points on their licence cannot be insured and are not accepted.'", None),
("near-miss", "How many hours of training do new Workshop Leads complete?", None, None,
 "Parallel entity: training hours are stated only for Counter Stewards. Distractors: [volunteer-roles.html] 'New stewards complete 4 hours of training' and 'Workshop Leads work sessions of 4 hours'.", None),
("near-miss", "At what humidity does the dehumidifier at the Osier Lane Depot switch on?", None, None,
 "Parallel entity: only the Brackenhythe Depot has a dehumidifier in the corpus; Osier Lane has heating thresholds instead. Distractor: [depots-guide.txt] 'a dehumidifier runs when the relative humidity rises above 65 percent and stops when it falls to 55 percent' (Brackenhythe).", None),
("near-miss", "What late fee did version 2 of the lending policy (April 2018) set?", None, None,
 "Version 2 is only mentioned as replaced; its fees are never given. Distractors: [lending-policy-2021.md] 'The late fee is 50p per item per day, capped at £10 per item.' (version 3) and 'This policy replaces version 2 (April 2018).'; [lending-policy-2024.md] 60p (version 5).", None),
("near-miss", "How long does a cargo trike delivery round usually take?", None, None,
 "Parallel entity: a round duration is stated only for the van. Distractor: [volunteer-roles.html] 'A van round usually takes about 3 hours.' (Van Driver section); Wren's '2-hour handling session' is training, not a round.", None),
("near-miss", "How many key holders did the Brackenhythe Depot have when it opened in 2019?", None, None,
 "Changed date: only the current number of key holders is given (guide revised January 2024), nothing for 2019. Distractor: [depots-guide.txt] 'Key holders: 4 volunteers hold keys to Brackenhythe.'", None),
("near-miss", "Who chaired the 2022 Annual General Meeting?", None, None,
 "Changed year: only the 2023 AGM's chair is named; the 2022 AGM is mentioned only by date. Distractors: [agm-minutes-2023.txt] 'Chair: Lionel Varga (chair of the board).' and 'The minutes of the AGM held on 19 November 2022 were approved as a correct record.'", None),
("near-miss", "What was the library's income in the year to 31 March 2022?", None, None,
 "Changed year: income is given only for the year to 31 March 2023. Distractor: [agm-minutes-2023.txt] 'Income was £48,300 and expenditure was £45,900, giving a surplus of £2,400.'", None),
("near-miss", "How many deliveries did Wren make in 2022?", None, None,
 "Changed year: delivery counts are given only for 2023. Distractor: [deliveries-and-vehicles.md] 'In 2023 Wren made 418 deliveries and Maud made 296, not counting the Friday transfer trips.'", None),
("near-miss", "Below what temperature does the heating at the Brackenhythe Depot switch on?", None, None,
 "Parallel entity: heating thresholds are given only for the Osier Lane storage hall; Brackenhythe has only damp control. Distractor: [depots-guide.txt] 'the storage hall heating switches on when the hall falls below 7 °C and off again when it reaches 11 °C' (Osier Lane).", None),
("near-miss", "How often must a Workshop Lead's DBS check be renewed?", None, None,
 "Changed attribute: the renewal interval is stated for the first aid certificate, not the DBS check. Distractor: [volunteer-roles.html] 'Every Workshop Lead must hold a current first aid certificate, renewed every 3 years, and must have an enhanced DBS check'.", None),
("near-miss", "By how many votes was the amendment to keep the standard fee at £30 defeated?", None, None,
 "Changed detail: the floor amendment was to keep the concession fee at £12, not the standard fee at £30; no vote on keeping the standard fee is recorded. Distractor: [agm-minutes-2023.txt] 'an amendment to keep the concession fee at £12 was proposed from the floor; it was defeated by 98 votes to 141.'", None),
("near-miss", "In what year did the repair cafe at the Brackenhythe Depot start?", None, None,
 "Changed site: the repair cafe is held in the Timber Room at Osier Lane; no repair cafe at Brackenhythe is mentioned. Distractor: [about-us.md] 'On the last Saturday of each month the Timber Room at Osier Lane hosts a repair cafe' and 'The repair cafe started in 2017'.", None),
]


def doc_text(name):
    t = open(os.path.join(CORPUS, name), encoding="utf-8").read()
    if name.endswith(".html"):
        t = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", t, flags=re.S)
        t = re.sub(r"<[^>]+>", " ", t)
        import html
        t = html.unescape(t)
    return re.sub(r"\s+", " ", t)


def main():
    rows, problems = [], []
    for i, (kind, q, answers, fname, quote, para) in enumerate(Q, start=1):
        qid = f"p10-{i}"
        if kind == "near-miss":
            rows.append({"id": qid, "corpus": "new", "question": q, "answerable": False,
                         "answers": [], "kind": kind, "note": quote})
            continue
        text = doc_text(fname)
        if quote not in text:
            problems.append(f"{qid}: quote not found in {fname}: {quote!r}")
        note = f'[{fname}] "{quote}"'
        low = text.lower()
        if kind == "yesno":
            note += f" (Answer '{answers[0]}' is a judgement on this sentence, not a span.)"
        else:
            missing = [a for a in answers if a.lower() not in low]
            if sorted(missing) != sorted(para):
                problems.append(f"{qid}: answers not in doc {missing} vs declared paraphrases {para}")
            for a in answers:
                if a not in para and a.lower() not in quote.lower():
                    problems.append(f"{qid}: answer {a!r} not in the quoted passage")
            if para:
                note += " Paraphrase variants not in the text: " + ", ".join(repr(p) for p in para) + "."
        rows.append({"id": qid, "corpus": "new", "question": q, "answerable": True,
                     "answers": answers, "kind": kind, "note": note})
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(os.path.join(HERE, "new.jsonl"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps({k: r[k] for k in ("question", "answers", "answerable", "id", "kind")},
                               ensure_ascii=False) + "\n")
    # re-read and validate
    for fn in ("questions.jsonl", "new.jsonl"):
        with open(os.path.join(HERE, fn), encoding="utf-8") as f:
            parsed = [json.loads(line) for line in f]
        assert len(parsed) == len(rows), fn
    c = Counter(r["kind"] for r in rows)
    yn = Counter(r["answers"][0] for r in rows if r["kind"] == "yesno")
    print("counts by kind:", dict(c), "total", len(rows))
    print("answerable:", sum(r["answerable"] for r in rows), "unanswerable:", sum(not r["answerable"] for r in rows))
    print("yes/no split:", dict(yn))
    assert set(c) == {"fact", "reworded", "yesno", "near-miss"} and min(c.values()) >= 12
    assert yn["yes"] == yn["no"]
    assert all((r["answers"] == []) == (not r["answerable"]) for r in rows)
    for p in problems:
        print("PROBLEM:", p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
