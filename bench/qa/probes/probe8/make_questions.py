#!/usr/bin/env python3
"""Generate questions.jsonl, sample.jsonl and new.jsonl for probe 8 and validate them.

Run from anywhere:  python3 make_questions.py
Checks that, for every answerable question, the quoted answering sentence occurs in the
named file (whitespace-normalised; HTML with script/style removed; PDF page text via
pymupdf when available) and that one of the answer strings occurs in that sentence.
For unanswerable (near-miss) questions it runs simple "must not occur" checks.
"""
import html
import json
import os
import re
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
NEW_DIR = os.path.join(HERE, "corpus")
SAMPLE_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "sample_corpus"))

# (corpus, kind, question, answers, file, quote, extra_note)
# answerable questions: file + quote; unanswerable: answers [], file None, note text.
Q = []


def A(corpus, kind, question, answers, file, quote, extra=""):
    Q.append(dict(corpus=corpus, kind=kind, question=question, answers=answers,
                  answerable=True, file=file, quote=quote, extra=extra))


def U(corpus, question, note, checks=()):
    Q.append(dict(corpus=corpus, kind="near-miss", question=question, answers=[],
                  answerable=False, file=None, quote=None, extra=note, checks=checks))


# ----------------------------------------------------------------- sample corpus (20)
S = "sample"
A(S, "fact", "At what water depth is the lake monitoring buoy moored?",
  ["38 metres", "38 m", "38"], "buoy-maintenance.md",
  "The monitoring buoy is moored above the deepest point of Lake Aldermere, at a water depth of 38 metres.")
A(S, "fact", "How long does the field station keep visitor lodge bookings?",
  ["24 months", "two years", "2 years"], "data-retention-policy.md",
  "| Visitor lodge bookings | 24 months |", "(row of the administrative records table)")
A(S, "fact", "What is the minimum length of a password for a field station account?",
  ["14 characters", "14"], "it-faq.txt",
  "At least 14 characters.", "(answer to 'What are the rules for passwords?')")
A(S, "fact", "What mesh size does the plankton net on the field guide's equipment checklist have?",
  ["50 micrometre", "50 micrometres", "50 µm"], "field-guide.pdf p.1",
  "Water sampler, plankton net with a 50 micrometre mesh, and the sediment corer.")
A(S, "fact", "How many panels make up the rooftop solar array on the main building?",
  ["42", "forty-two"], "solar-array.md",
  "42 monocrystalline panels of 400 W each, giving a peak power of 16.8 kWp.")

A(S, "yesno", "Under the 2025 remote work policy, may a staff member work remotely from another country for 25 working days in one calendar year?",
  ["no"], "remote-work-policy-2025.md",
  "Remote work from another country is allowed for up to 20 working days per calendar year, provided the office has confirmed that tax and insurance rules permit it.",
  "25 days exceeds the 20-day limit, so: no.")
A(S, "yesno", "Is CCTV used on Tarn Island?",
  ["no"], "data-retention-policy.md", "CCTV is not used on the island.", "So: no.")
A(S, "yesno", "If a station account is locked after too many failed login attempts, does it unlock by itself after 30 minutes?",
  ["yes"], "it-faq.txt", "Accounts unlock themselves after 30 minutes.", "So: yes.")
A(S, "yesno", "Is the first replacement of a lost TallyGate badge free of charge?",
  ["yes"], "onboarding-handbook.md", "A replacement costs nothing the first time.", "So: yes.")

U(S, "How much does a second replacement TallyGate badge cost?",
  "The onboarding handbook says only 'A replacement costs nothing the first time.' No price is given for any later replacement badge anywhere in the corpus.",
  checks=[("re", r"second replacement|replacement badge costs|badge costs")])
U(S, "What is the typical Secchi depth of Lake Aldermere in autumn?",
  "lake-glossary.html gives Secchi depth only for late winter under ice (7 m) and midsummer (4-5 m); no autumn value is stated. Distractors: 7, 4-5, 'over ten metres' (generic clear lakes).",
  checks=[("file_lacks", "lake-glossary.html", r"autumn[^.]*secchi|secchi[^.]*autumn")])
U(S, "Under the 2021 Working From Home Policy, how many days per year could staff work from abroad?",
  "The 2021 policy says nothing about working from another country; the 20-working-day limit is in the 2025 revision only.",
  checks=[("file_lacks", "remote-work-policy-2021.md", r"abroad|another country|foreign")])
U(S, "How much of Vossberg Electric's quote for the battery bank was for the installation work alone?",
  "The meeting notes give only the total: 'Vossberg Electric quoted 38,400 euros including installation'. No split between equipment and installation is given. Distractor: 38,400.",
  checks=[("re", r"installation (cost|alone|work cost)|cost of installation")])
U(S, "When was the Kittiwake's outboard engine last serviced?",
  "The staff meeting notes say 'The Kittiwake winch was serviced last week.' Nothing says when the 60 hp outboard engine was serviced. Distractor: the winch service.",
  checks=[("re", r"engine (was )?serviced|serviced the engine|engine service")])
U(S, "On which date was the monitoring buoy actually brought in at the end of the 2024 season?",
  "The 7 November 2024 notes give only the plan (Monday 25 November if the wind allows, Thursday 28 November as reserve); no document reports the actual retrieval date. Distractors: 25 November, 28 November.",
  checks=[("re", r"was (brought in|retrieved) on|retrieved the buoy on")])

A(S, "paraphrase", "Roughly what distance separates the island the research station sits on from the nearest village?",
  ["four kilometres", "4 km", "4 kilometres", "four km"], "onboarding-handbook.md",
  "The station sits on Tarn Island, at the northern end of Lake Aldermere, about four kilometres from the village of Fernbrook.")
A(S, "paraphrase", "Which writing materials are acceptable for marking the bottles and jars that samples are collected in?",
  ["pencil", "waterproof ink"], "field-guide.pdf p.3",
  "Every container carries a label written in pencil or waterproof ink in the form BLFS-YYYYMMDD-site-depth")
A(S, "paraphrase", "If a boat crew is late getting back, how long past their expected time does the person on duty wait before launching a search?",
  ["one hour", "1 hour", "an hour"], "field-guide.pdf p.4",
  "Lost or overdue: if a boat has not signed back in one hour after its expected return time, the duty officer starts a search using the route given in the boat log.",
  "(onboarding-handbook.md says the same in its Boats section.)")
A(S, "paraphrase", "For each extra degree of heat beyond 25 °C, what share of their power do the station's photovoltaic modules give up?",
  ["0.35 percent", "0.35%", "0.35"], "solar-array.md",
  "The panels we use lose about 0.35 percent of their output for every degree Celsius above 25 °C")
A(S, "paraphrase", "How frequently does someone check that files can actually be recovered from the backups?",
  ["every quarter", "quarterly", "four times a year", "every three months"], "data-retention-policy.md",
  "A restore test is carried out every quarter.")

# ----------------------------------------------------------------- new corpus (42)
N = "new"
A(N, "fact", "Who is the site manager of Marram Point Lido?",
  ["Ossian Pellew", "Pellew"], "site-guide.txt", "Site manager: Ossian Pellew",
  "(section 2, Marram Point Lido; Crowfield's manager is Wilhelmina Farrant)")
A(N, "fact", "Under the 2023-24 price list, what did an adult casual swim at Crowfield Baths cost?",
  ["£4.80", "4.80"], "prices-2023.md", "| Adult swim | £4.80 |",
  "(row of the 'Crowfield Baths: casual swims' table; the 2025 price is £5.40, the Lido's 2023 price £6.00)")
A(N, "fact", "How many lanes does the main pool at Marram Point Lido have?",
  ["8", "eight"], "site-guide.txt",
  "Main pool: 50 metres long with 8 lanes, 1.0 metres deep at the shallow end.",
  "(Crowfield's main pool has 6 lanes)")
A(N, "fact", "How many visits did Wexmoor Aquatics Trust record across both sites in the financial year to 31 March 2024?",
  ["612,000", "612000", "612 000"], "board-minutes-2024-11-19.txt",
  "The Chief Executive reported 612,000 visits across both sites in the financial year to 31 March 2024, an increase of 7 percent on the previous year.")
A(N, "fact", "How much does the Swim 12 bundle cost?",
  ["£54", "54"], "prices-2025.md",
  "It is replaced by Swim 12, a bundle of twelve adult swims for £54 that can be used at either site and is valid for twelve months from purchase.")
A(N, "fact", "What is the maximum number of pupils per teacher in Ripple 1 to 3 swimming classes?",
  ["6", "six"], "swim-school.md",
  "There are no more than 6 pupils per teacher in Ripple 1 to 3, and no more than 10 pupils per teacher in Ripple 4 to 10.")
A(N, "fact", "At what time does the women-only swim at Crowfield Baths start?",
  ["18:30", "6:30 pm", "6.30pm", "6:30pm"], "timetable.html",
  "Wednesday Women-only swim Main pool 18:30-19:45",
  "(table row: Wednesday | Women-only swim | Main pool | 18:30-19:45)")
A(N, "fact", "How much will the repairs to the Crowfield Baths roof cost?",
  ["£265,000", "265,000", "265000"], "board-minutes-2024-11-19.txt",
  "The repairs will cost £265,000, paid from the council's Leisure Capital Fund.")
A(N, "fact", "How many days in advance can Swim Anywhere members book lane sessions?",
  ["9 days", "nine days", "9"], "customer-faq.md",
  "Swim Anywhere members can book lane sessions up to 9 days in advance.",
  "(non-members: 7 days)")
A(N, "fact", "At what water temperature is the Crowfield teaching pool kept?",
  ["31 °C", "31°C", "31 degrees", "31"], "site-guide.txt",
  "The main pool is kept at 28 °C and the teaching pool at 31 °C.")

A(N, "yesno", "Under the prices that apply from 1 April 2025, does a four-year-old swim free at Crowfield Baths?",
  ["no"], "prices-2025.md", "Four-year-olds now pay the junior price.",
  "(Under the 2023 list under-5s swam free.) So: no.")
A(N, "yesno", "Under the 2023-24 price list, did Swim Anywhere membership include weekend entry to Marram Point Lido at no extra charge?",
  ["no"], "prices-2023.md", "At weekends, members pay half the casual adult price at the Lido.",
  "(Weekend Lido entry was only added to the membership in 2025.) So: no.")
A(N, "yesno", "May a 10-year-old swim at Crowfield Baths without an adult in the water if a responsible adult stays in the spectator gallery?",
  ["yes"], "pool-rules.md",
  "Children aged 8 to 11 may swim without an adult in the water, provided a responsible adult stays on site: in the spectator gallery at Crowfield Baths or on the deck at the Lido.",
  "So: yes.")
A(N, "yesno", "Will the Crowfield teaching pool stay open while the main pool hall is closed for roof repairs in early 2025?",
  ["yes"], "board-minutes-2024-11-19.txt",
  "The teaching pool will stay open throughout, with access through the side entrance on Gower Lane.",
  "So: yes.")
A(N, "yesno", "Are swimmers allowed to use fins in the medium lane?",
  ["no"], "pool-rules.md", "Fins and hand paddles may be used in the fast lane only.", "So: no.")
A(N, "yesno", "Can a 9-year-old who is a strong swimmer use the springboard at Marram Point Lido?",
  ["no"], "pool-rules.md",
  "Springboard users must be aged 10 or over and able to swim 25 metres unaided.",
  "Age 9 is below the minimum of 10, whatever the swimming ability. So: no.")
A(N, "yesno", "Can the Wexcard Go wristband be used to operate the lockers at Crowfield Baths?",
  ["yes"], "customer-faq.md",
  "The wristband also locks and unlocks the lockers at Crowfield Baths, so you no longer need a coin there.",
  "(The Lido lockers still take a coin.) So: yes.")
A(N, "yesno", "Did the board approve the extension of the Lido season unanimously?",
  ["no"], "board-minutes-2024-11-19.txt",
  "Decision: the extension was approved by five votes to two, for the 2025 season first, to be reviewed after it.",
  "Two trustees voted against. So: no.")
A(N, "yesno", "If parents tell the Swim School 48 hours ahead that their child will miss a lesson, can the child get a make-up lesson?",
  ["yes"], "swim-school.md",
  "If you tell us at least 48 hours before a lesson that your child will miss it, we will offer one make-up lesson per term in another class at the same level.",
  "So: yes (one per term).")
A(N, "yesno", "If the Lido's water temperature drops to 19 °C, can adults still swim in lane sessions?",
  ["yes"], "pool-rules.md",
  "If the water temperature at the Lido falls below 20 °C, general swim sessions are cancelled, but lane swimming for adults continues.",
  "So: yes (general sessions are cancelled, adult lanes continue).")

U(N, "In what year did Ossian Pellew become site manager of Marram Point Lido?",
  "site-guide.txt gives a start year only for the other manager ('Wilhelmina Farrant has managed Crowfield Baths since 2017.'). No start date is given for Ossian Pellew. Distractor: 2017 (also 1938, 2021 for the Lido itself).",
  checks=[("line_lacks", "Pellew", r"\b(19|20)\d\d\b|since")])
U(N, "What is the maximum number of bathers allowed in Crowfield Baths at one time?",
  "Only the Lido's capacity is stated ('The Lido holds a maximum of 400 people at a time'). No bather limit is given for Crowfield. Distractors: 400 (Lido), 80 gallery seats, 30 (Aqua-fit class limit), 42 car park spaces.",
  checks=[("sentence_lacks", "Crowfield", r"capacity|bather limit|holds a maximum")])
U(N, "How long is lost property kept at Marram Point Lido?",
  "The 30-day lost-property period in site-guide.txt is in the Crowfield Baths section only; the Lido section and the other documents say nothing about lost property at the Lido. Distractor: 30 days (and 7 days for valuables, also Crowfield).",
  checks=[("sentence_lacks", "Lido", r"lost property")])
U(N, "How many visits did Crowfield Baths receive in the financial year to 31 March 2024?",
  "The minutes give only the total for both sites (612,000) and the Lido's 2024 season (148,000, a different period); trustees asked for visits by site in next year's report. A figure for Crowfield alone is not stated and cannot be derived from figures for the same period. Distractors: 612,000, 148,000.",
  checks=[("re", r"Crowfield (Baths )?recorded|visits at Crowfield")])
U(N, "How much will the solar panels for heating the Lido pool water cost?",
  "The minutes say Ambrey Energy will present a cost estimate at the next meeting and 'No figure was available at this meeting.' Distractor: £265,000 (Crowfield roof).",
  checks=[("sentence_lacks", "solar thermal", r"£")])
U(N, "Who will succeed Eustace Polwhele as treasurer of Wexmoor Aquatics Trust?",
  "The minutes say 'No successor has been identified'. Distractors: Marguerite Lanyon (chair, leading the skills review), Corvin Ashdale.",
  checks=[("re", r"new treasurer|successor (is|will be)|succeeded by")])
U(N, "What was the maximum class size under the old Stage 1 to 7 swimming scheme?",
  "swim-school.md says only that under the old scheme classes 'had become too large for beginners'; the numeric limits (6 and 10 pupils per teacher) are for the new Ripple levels. Distractors: 6, 10.",
  checks=[("sentence_lacks", "Stage", r"pupils per teacher|\bmaximum\b|no more than")])
U(N, "At what time does the Aqua-fit class run at Marram Point Lido?",
  "Aqua-fit is listed only on the Crowfield Baths timetable (Monday 18:00-18:45, main pool); the page says the Lido timetable is published separately, and no document gives Lido Aqua-fit times. Distractor: Monday 18:00-18:45.",
  checks=[("sentence_lacks", "Aqua-fit", r"Lido")])
U(N, "What hourly rate will trainee lifeguards be paid from January 2025?",
  "The minutes give the new rate only for qualified pool lifeguards (£11.90 rising to £12.60); trainee lifeguards aged 16-17 are mentioned without any pay rate. Distractors: £12.60, £11.90.",
  checks=[("sentence_lacks", "trainee", r"£|per hour|hourly")])
U(N, "How much does it cost to park at the Esplanade car park near Marram Point Lido?",
  "site-guide.txt calls it the council's pay-and-display car park and says 'the trust does not set its charges'; no charge is stated. Distractor: Crowfield's car park is free for three hours.",
  checks=[("sentence_lacks", "pay-and-display", r"£|\bfree\b")])
U(N, "In which month of 2026 will the accessible changing room at Marram Point Lido open?",
  "The minutes say the Lido accessible changing room is 'planned for the Lido in 2026. No date or cost has been agreed yet.' Distractor: 14 October 2024 (Crowfield's Changing Places toilet).",
  checks=[("sentence_lacks", "2026", r"January|February|March|April|May|June|July|August|September|October|November|December")])
U(N, "Under the 2025 price list, how much does Swim Anywhere membership cost per month for a junior?",
  "prices-2025.md gives only the adult price ('Swim Anywhere costs £36 per month for adults'); no junior membership price is stated in either price list. Distractors: £36, £32 (2023).",
  checks=[("sentence_lacks", "Swim Anywhere", r"junior[^.]*£|£[^.]*junior")])

A(N, "paraphrase", "Which person heads the covered pool building on Tallis Street?",
  ["Wilhelmina Farrant", "Farrant"], "site-guide.txt", "Site manager: Wilhelmina Farrant",
  "(section 1, Crowfield Baths, 14 Tallis Street; the indoor site)")
A(N, "paraphrase", "Once a storm has passed over the open-air pool, how long after the final rumble or flash may people go back in?",
  ["30 minutes", "thirty minutes", "half an hour"], "pool-rules.md",
  "Swimming resumes 30 minutes after the last thunder or lightning.")
A(N, "paraphrase", "What exclusion period applies to someone who has been formally cautioned on paper twice within half a year?",
  ["eight weeks", "8 weeks"], "pool-rules.md",
  "A swimmer who receives two written warnings within six months is banned from both sites for eight weeks.")
A(N, "paraphrase", "How old must a child be before they can start in the lowest level of the children's group classes?",
  ["four", "4"], "swim-school.md",
  "Children can join Ripple 1 once they have turned four by the first day of term.")
A(N, "paraphrase", "Since the April 2025 tariff, up to what age do teenagers keep getting the cheaper children's rate?",
  ["under 18", "17", "18"], "prices-2025.md",
  "The junior age limit has been raised from under 16 to under 18, so 16- and 17-year-olds now pay the junior price.")
A(N, "paraphrase", "If I leave my goggles behind at the indoor baths, how long do I have to reclaim them before they are given away?",
  ["30 days", "thirty days"], "site-guide.txt",
  "Lost property is kept at reception for 30 days and then donated to charity.",
  "(Crowfield Baths section)")
A(N, "paraphrase", "Under the current tariff, what does a friend who only wants to sit and watch at the open-air pool have to pay?",
  ["£2", "2.00"], "prices-2025.md",
  "Spectators at the Lido now buy a deck pass for £2.00 instead of paying the full adult price.",
  "(Under the 2023 list Lido spectators paid the full adult price, £6.00.)")
A(N, "paraphrase", "Which company did the trustees hire to look into warming the seafront pool's water with heat collectors on a roof?",
  ["Ambrey Energy", "Ambrey"], "board-minutes-2024-11-19.txt",
  "To reduce heating costs, the board commissioned Ambrey Energy to carry out a feasibility study on solar thermal panels on the roof of the Lido changing block to heat the pool water.")
A(N, "paraphrase", "After what date did the old swipe cards stop letting people through the entrance barriers?",
  ["31 March 2025", "March 31, 2025", "2025-03-31"], "customer-faq.md",
  "The original Wexcard stopped working at all turnstiles on 31 March 2025.")
A(N, "paraphrase", "If someone fails to turn up to reserved sessions three times in a single month, for how long are they prevented from reserving ahead?",
  ["14 days", "fourteen days", "two weeks", "2 weeks"], "customer-faq.md",
  "Three no-shows in one calendar month block advance booking for 14 days; you can still buy a ticket on the day if there is space.")


# ----------------------------------------------------------------- text loading
def norm(s):
    return re.sub(r"\s+", " ", html.unescape(s)).strip()


def pdf_pages(path):
    try:
        import pymupdf as fitz  # noqa
    except ImportError:
        try:
            import fitz  # noqa
        except ImportError:
            return None
    return [norm(p.get_text()) for p in fitz.open(path)]


def load(corpus, fname):
    base = SAMPLE_DIR if corpus == "sample" else NEW_DIR
    m = re.match(r"(.+\.pdf) p\.(\d+)$", fname)
    if m:
        pages = pdf_pages(os.path.join(base, m.group(1)))
        return None if pages is None else pages[int(m.group(2)) - 1]
    raw = open(os.path.join(base, fname), encoding="utf-8").read()
    if fname.endswith(".html"):
        raw = re.sub(r"<(script|style)\b[^>]*>.*?</\1>", " ", raw, flags=re.S | re.I)
        raw = re.sub(r"<[^>]+>", " ", raw)
    if fname.endswith(".md"):
        raw = re.sub(r"\s*\|\s*", " | ", raw)  # collapse table padding
        raw = raw.replace("**", "")  # ignore bold markers
    return norm(raw)


def corpus_texts(corpus):
    base = SAMPLE_DIR if corpus == "sample" else NEW_DIR
    out = {}
    for f in sorted(os.listdir(base)):
        if f.startswith(".") or f in ("README", "make_pdf.py", "queries.jsonl", "qrels.tsv"):
            continue
        if f.endswith(".pdf"):
            pages = pdf_pages(os.path.join(base, f))
            if pages:
                for i, p in enumerate(pages, 1):
                    out[f"{f} p.{i}"] = p
            continue
        out[f] = load(corpus, f)
    return out


def sentences(text):
    return re.split(r"(?<=[.!?])\s+|\n", text)


def main():
    errors = []
    rows = []
    texts = {"sample": corpus_texts("sample"), "new": corpus_texts("new")}
    for i, q in enumerate(Q, 1):
        qid = f"p8-{i}"
        if q["answerable"]:
            note = f"[{q['file']}] \"{q['quote']}\"" + (f" {q['extra']}" if q["extra"] else "")
            text = load(q["corpus"], q["file"])
            quote = norm(re.sub(r"\s*\|\s*", " | ", q["quote"])) if q["file"].endswith(".md") else norm(q["quote"])
            if text is None:
                print(f"warning {qid}: cannot read {q['file']} (no pymupdf); quote not checked")
            elif quote not in text:
                errors.append(f"{qid}: quote not found in {q['file']}: {q['quote'][:60]}")
            if q["kind"] != "yesno" and not any(a.lower() in quote.lower() for a in q["answers"]):
                errors.append(f"{qid}: no answer string in quote")
            if q["kind"] == "yesno" and q["answers"] not in (["yes"], ["no"]):
                errors.append(f"{qid}: yesno answers must be ['yes'] or ['no']")
        else:
            note = q["extra"]
            for chk in q.get("checks", ()):
                for fname, t in texts[q["corpus"]].items():
                    if chk[0] == "re" and re.search(chk[1], t, re.I):
                        errors.append(f"{qid}: forbidden pattern {chk[1]!r} in {fname}")
                    elif chk[0] == "file_lacks" and fname == chk[1] and re.search(chk[2], t, re.I):
                        errors.append(f"{qid}: pattern {chk[2]!r} found in {fname}")
                    elif chk[0] in ("sentence_lacks", "line_lacks"):
                        for s in sentences(t):
                            if chk[1].lower() in s.lower() and re.search(chk[2], s, re.I):
                                errors.append(f"{qid}: {fname}: sentence with {chk[1]!r} matches {chk[2]!r}: {s[:90]}")
        rows.append({"id": qid, "corpus": q["corpus"], "question": q["question"],
                     "answerable": q["answerable"], "answers": q["answers"],
                     "kind": q["kind"], "note": note})

    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "duplicate ids"
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    for corpus in ("sample", "new"):
        with open(os.path.join(HERE, f"{corpus}.jsonl"), "w", encoding="utf-8") as f:
            for r in rows:
                if r["corpus"] == corpus:
                    f.write(json.dumps({"question": r["question"], "answers": r["answers"],
                                        "answerable": r["answerable"], "id": r["id"],
                                        "kind": r["kind"]}, ensure_ascii=False) + "\n")

    # re-read and count
    back = [json.loads(l) for l in open(os.path.join(HERE, "questions.jsonl"), encoding="utf-8")]
    split = [json.loads(l) for c in ("sample", "new")
             for l in open(os.path.join(HERE, f"{c}.jsonl"), encoding="utf-8")]
    assert len(back) == len(split) == len(rows)
    assert sorted(r["id"] for r in split) == sorted(ids)
    for r in back:
        assert r["answerable"] == (r["kind"] != "near-miss")
        assert bool(r["answers"]) == r["answerable"]
    c = Counter((r["kind"], r["corpus"]) for r in back)
    yn = Counter((r["corpus"], r["answers"][0]) for r in back if r["kind"] == "yesno")
    print("| kind | sample | new | total |")
    print("|------|-------:|----:|------:|")
    for k in ("fact", "yesno", "near-miss", "paraphrase"):
        print(f"| {k} | {c[(k, 'sample')]} | {c[(k, 'new')]} | {c[(k, 'sample')] + c[(k, 'new')]} |")
    ns = sum(v for (k, co), v in c.items() if co == "sample")
    nn = sum(v for (k, co), v in c.items() if co == "new")
    print(f"| **total** | **{ns}** | **{nn}** | **{ns + nn}** |")
    print("yes/no split:", dict(yn))
    print("answerable:", sum(r["answerable"] for r in back), "unanswerable:", sum(not r["answerable"] for r in back))
    if errors:
        print("\nERRORS:")
        for e in errors:
            print(" ", e)
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
