#!/usr/bin/env python3
"""Probe 9: generate and validate the sealed QA questions.

Run with a Python that has pymupdf (ragchain's environment), for the sample PDF check:
    python make_questions.py
Writes questions.jsonl, sample.jsonl, new.jsonl next to this script, then validates them
and prints a kind x corpus counts table. Exits non-zero on any failure.
"""
import json, re, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DIRS = {"sample": HERE.parents[3] / "sample_corpus", "new": HERE / "corpus"}
SKIP = {"queries.jsonl", "qrels.tsv", "make_pdf.py", "README", ".ragchainignore"}

# (id, corpus, kind, question, answers, note)
# Answerable notes: "[file] quoted sentence" (PDF: "[file p.N]", JSONL: "[abstracts.jsonl abs-NNN]").
# Near-miss entries carry a NM check: (file or None for whole corpus, entity regex, forbidden regex).
Q = [
 # ---------------- sample corpus: fact ----------------
 ("p9-1", "sample", "fact", "How many monocrystalline panels make up the station's rooftop solar array?", ["42"],
  "[solar-array.md] 42 monocrystalline panels of 400 W each, giving a peak power of 16.8 kWp."),
 ("p9-2", "sample", "fact", "What is the minimum length of a password at the field station?", ["14"],
  "[it-faq.txt] At least 14 characters."),
 ("p9-3", "sample", "fact", "How long are the nightly backups kept on the backup server?", ["30 days"],
  "[data-retention-policy.md] Nightly backups to the backup server in the boat shed are kept for 30 days."),
 ("p9-4", "sample", "fact", "Which marine VHF channel does the station listen on?", ["72"],
  "[field-guide.pdf p.4] Radio: the station listens on marine VHF channel 72 during working hours and whenever a boat is signed out in the boat log."),
 ("p9-5", "sample", "fact", "What mesh size is the plankton net on the field guide's equipment checklist?", ["50 micrometre", "50 µm", "50-micrometre"],
  "[field-guide.pdf p.1] Water sampler, plankton net with a 50 micrometre mesh, and the sediment corer."),
 # ---------------- sample corpus: yesno ----------------
 ("p9-6", "sample", "yesno", "Under the 2025 remote work policy, can someone who already received the 300-euro allowance claim another 150 euros?", ["yes"],
  "[remote-work-policy-2025.md] Staff who received the earlier 300-euro allowance may claim the difference of 150 euros."),
 ("p9-7", "sample", "yesno", "Does the station keep employment records for 10 years after employment ends?", ["no"],
  "[data-retention-policy.md] | Employment records | 6 years after employment ends |"),
 ("p9-8", "sample", "yesno", "At the Mill Creek mouth site, may you wade in to sample where the water is half a metre deep?", ["yes"],
  "[field-guide.pdf p.2] Wading is allowed only where the water is shallower than 0.8 metres; otherwise sample from a boat."),
 ("p9-9", "sample", "yesno", "Is CCTV used on Tarn Island?", ["no"],
  "[data-retention-policy.md] CCTV is not used on the island."),
 # ---------------- sample corpus: near-miss ----------------
 ("p9-10", "sample", "near-miss", "What horsepower is the outboard engine on the Teal?", [],
  "Unanswerable: engine power is given only for the Kittiwake (60 hp outboard, onboarding-handbook.md); Teal and Grebe are described only as smaller open boats.",
  (None, r"\bTeal\b", r"\bhp\b|horsepower")),
 ("p9-11", "sample", "near-miss", "What is the bandwidth limit per device on the BLFS-Staff wireless network?", [],
  "Unanswerable: it-faq.txt gives a 5 Mbit/s per-device limit only for the guest network BLFS-Guest; no limit is stated for BLFS-Staff.",
  (None, r"BLFS-Staff", r"Mbit|Mbps")),
 ("p9-12", "sample", "near-miss", "How long does the winter hovercraft crossing to Tarn Island take?", [],
  "Unanswerable: visitor-info.html says the ferry crossing takes about twenty minutes; for the hovercraft it says only that it runs twice a week when the lake freezes.",
  (None, r"hovercraft", r"minute|hour")),
 ("p9-13", "sample", "near-miss", "How many years of warranty come with the Vossberg Electric battery bank?", [],
  "Unanswerable: the staff meeting notes give the Vossberg quote (38,400 euros including installation), capacity (30 kWh) and installation date (March 2025), but no warranty.",
  (None, None, r"warrant|guarantee")),
 ("p9-14", "sample", "near-miss", "Which company installed the rooftop solar array on the main building?", [],
  "Unanswerable: no installer of the solar array is named; the nearby distractor is Vossberg Electric, which quoted for the battery bank (staff-meeting-2024-11-07.txt).",
  (None, r"panels|solar array", r"Vossberg|installed by|contractor|supplier")),
 ("p9-15", "sample", "near-miss", "What are the opening hours of the IT desk?", [],
  "Unanswerable: it-faq.txt refers to the IT desk and a duty phone but gives no hours; the nearby distractor is the station office, staffed weekdays 08:30 to 16:00 (visitor-info.html).",
  (None, r"IT desk", r"\d{1,2}:\d\d")),
 # ---------------- sample corpus: paraphrase ----------------
 ("p9-16", "sample", "paraphrase", "If too many wrong sign-in tries shut you out, how long before you can get back in without anyone's help?", ["30 minutes", "half an hour"],
  "[it-faq.txt] Accounts unlock themselves after 30 minutes."),
 ("p9-17", "sample", "paraphrase", "What is the name of the biggest of the station's three craft, the metal one used for hauling heavy gear?", ["Kittiwake"],
  "[onboarding-handbook.md] The Kittiwake, a 5.8-metre aluminium workboat with a 60 hp outboard engine and a small winch."),
 ("p9-18", "sample", "paraphrase", "For how long after their final visit does the station hold on to guests' names and phone numbers?", ["24 months", "two years"],
  "[data-retention-policy.md] Names and contact details of visitors are deleted 24 months after their last stay."),
 ("p9-19", "sample", "paraphrase", "How much power do the roof modules give up for every extra degree once they are hotter than 25 °C?", ["0.35"],
  "[solar-array.md] The panels we use lose about 0.35 percent of their output for every degree Celsius above 25 °C, so a cool, bright spring day often gives more power than a hot day in July."),
 ("p9-20", "sample", "paraphrase", "By how many days every ten years did the frozen period on the northern lakes get shorter?", ["1.9"],
  "[abstracts.jsonl abs-004] The ice season shortened on average by 1.9 days per decade, mostly because ice-off moved earlier in spring."),
 # ---------------- new corpus: fact ----------------
 ("p9-21", "new", "fact", "Under the 2022 callout procedure, how many members made up a Level B hasty party?", ["six", "6"],
  "[callout-procedure-2022.md] Level B (hasty party): a first party of six members is sent to a known location, with the rest of the team on standby at home."),
 ("p9-22", "new", "fact", "Under the 2025 callout procedure, within how many minutes must a member be able to reach base to reply Attending?", ["60", "sixty", "one hour"],
  "[callout-procedure-2025.md] Reply Attending only if you can reach base within 60 minutes."),
 ("p9-23", "new", "fact", "In what year was Glenharrow Base rebuilt?", ["2019"],
  "[bases-and-vehicles.txt] The first base on this site opened in 1987, and the building was demolished and rebuilt in 2019 with a lottery grant."),
 ("p9-24", "new", "fact", "How many callouts did the Harrowdale Mountain Rescue Team have in 2023?", ["147"],
  "[agm-minutes-2024-03-16.txt] The chair reported that the team was called out 147 times in the calendar year 2023, the highest number in the team's history."),
 ("p9-25", "new", "fact", "What is the cost of the thermal imaging drone, including training?", ["14,500", "14500"],
  "[agm-minutes-2024-03-16.txt] The committee proposed buying a drone with a thermal imaging camera for night searches, at a cost of 14,500 pounds including training."),
 ("p9-26", "new", "fact", "Who leads the rope rescue module on the 2025 training calendar?", ["Lenka Dvorakova", "Dvorakova"],
  "[training-calendar.html] Sunday 6 April Rope rescue module, day 1 Harrow Crag Lenka Dvorakova"),
 ("p9-27", "new", "fact", "How high is Scar Pike?", ["978"],
  "[public-safety-advice.md] Scar Pike is the highest fell in the valley at 978 metres."),
 ("p9-28", "new", "fact", "What is the minimum age for applying to join the Harrowdale team?", ["18"],
  "[membership-and-kit.md] Applicants must be at least 18 years old on the day they apply."),
 ("p9-29", "new", "fact", "Who was elected secretary at the March 2024 AGM?", ["Aled Varley", "Varley"],
  "[agm-minutes-2024-03-16.txt] Gideon Platt stood down as secretary after six years; Aled Varley was elected secretary in his place."),
 ("p9-30", "new", "fact", "What is the steepest slope across which the all-terrain vehicle may be driven?", ["25 degrees", "25°"],
  "[bases-and-vehicles.txt] It must not be driven across slopes steeper than 25 degrees, and it is never taken onto the summit plateau of Scar Pike."),
 # ---------------- new corpus: yesno ----------------
 ("p9-31", "new", "yesno", "Under the 2025 callout procedure, may a member who lives up the valley respond directly to the Stoneybridge Outpost?", ["yes"],
  "[callout-procedure-2025.md] Members who live up the valley may respond directly to the Stoneybridge Outpost if it is closer, and must say so in the app."),
 ("p9-32", "new", "yesno", "Under the 2022 callout procedure, could probationary members attend Level B callouts?", ["no"],
  "[callout-procedure-2022.md] Probationary members may attend Level A callouts only, and only in a party with a named mentor."),
 ("p9-33", "new", "yesno", "May a 24-year-old member who has held a full driving licence for four years drive Rescue 2?", ["yes"],
  "[bases-and-vehicles.txt] Team vehicles may be driven only by members aged 23 or over who have held a full driving licence for at least three years."),
 ("p9-34", "new", "yesno", "Is Rescue 3 driven under blue lights?", ["no"],
  "[bases-and-vehicles.txt] Driving Rescue 1 under blue lights also requires the advanced emergency driving course; the other vehicles are never driven under blue lights."),
 ("p9-35", "new", "yesno", "Can a 62-year-old member have a medical check with their own doctor instead of the Scar Pike fitness check?", ["yes"],
  "[membership-and-kit.md] Members aged 60 or over may choose a medical check with their own doctor instead."),
 ("p9-36", "new", "yesno", "Does the team charge a walker for a rescue if the walker was badly equipped?", ["no"],
  "[public-safety-advice.md] The Harrowdale Mountain Rescue Team never charges for a rescue, whatever the cause."),
 ("p9-37", "new", "yesno", "May the team's thermal imaging drone be flown in a wind of 30 kilometres per hour?", ["yes"],
  "[agm-minutes-2024-03-16.txt] The drone will be kept at Glenharrow Base and will not be flown in winds above 35 kilometres per hour."),
 ("p9-38", "new", "yesno", "Does the Stoneybridge Outpost have a drying room?", ["no"],
  "[bases-and-vehicles.txt] There is no drying room."),
 ("p9-39", "new", "yesno", "Does the team provide safety cover for events held on the fells at night?", ["no"],
  "[public-safety-advice.md] The team does not provide cover for events held at night."),
 ("p9-40", "new", "yesno", "If there is no snow in the Scar Pike north gully, is the winter skills day moved to February?", ["yes"],
  "[training-calendar.html] The winter skills day goes ahead only if there is snow on the north gully; otherwise it moves to the first Saturday in February."),
 # ---------------- new corpus: near-miss ----------------
 ("p9-41", "new", "near-miss", "In what year did Fergus Ambleby become keyholder of the Stoneybridge Outpost?", [],
  "Unanswerable: a start year is given only for Ingrid Saltonstall, base manager of Glenharrow Base since 2015; the outpost opened in 2008 but Ambleby's start is not stated (bases-and-vehicles.txt).",
  (None, r"Ambleby", r"\b(19|20)\d\d\b|\bsince\b")),
 ("p9-42", "new", "near-miss", "How many people does the training room at the Stoneybridge Outpost seat?", [],
  "Unanswerable: only Glenharrow Base has a training room that seats 30; the outpost has no training room or seating figure (bases-and-vehicles.txt).",
  (None, r"Stoneybridge Outpost|the outpost", r"\bseat")),
 ("p9-43", "new", "near-miss", "How often is Rescue 2 serviced?", [],
  "Unanswerable: the service interval (every 10,000 km or six months) is given only for Rescue 1 (bases-and-vehicles.txt).",
  (None, r"Rescue 2", r"servic")),
 ("p9-44", "new", "near-miss", "Under the 2025 callout procedure, how much is a member charged for losing a second pager?", [],
  "Unanswerable: pagers were withdrawn on 31 January 2025; the 40-pound charge for a second lost pager is in the 2022 procedure only.",
  ("callout-procedure-2025.md", r"[Pp]ager", r"pounds?|£|charg")),
 ("p9-45", "new", "near-miss", "How many callouts did the Harrowdale team have in 2022?", [],
  "Unanswerable: the AGM minutes give only 2023 (147 callouts, 'the highest number in the team's history'); no 2022 figure is stated.",
  (None, r"\b2022\b", r"\d+\s+(callouts|times)|called out")),
 ("p9-46", "new", "near-miss", "How many callouts did the team have in July 2023?", [],
  "Unanswerable: only the busiest month is given (August, 23 callouts, agm-minutes-2024-03-16.txt); no July figure.",
  (None, r"\bJuly\b", r"callout")),
 ("p9-47", "new", "near-miss", "What is the estimated cost of extending the Stoneybridge Outpost in 2026?", [],
  "Unanswerable: the AGM agreed the 2026 extension in principle but 'No cost estimate has yet been prepared'; nearby figures are the drone (14,500 pounds) and the Fells Trust grant.",
  (None, r"extend|extension", r"pounds|£|\d{1,3},\d{3}")),
 ("p9-48", "new", "near-miss", "How many operational members respond from the Stoneybridge end of the valley?", [],
  "Unanswerable: the AGM gives only the team total (46 operational members, 12 probationers) with no split by base; it says only that more members are responding from the upper valley.",
  (None, r"Stoneybridge|upper valley|up the valley", r"\b\d+\s+(operational\s+)?members")),
 ("p9-49", "new", "near-miss", "What was the team's total income in 2022?", [],
  "Unanswerable: the treasurer's report gives income only for 2023 (182,000 pounds); no 2022 figure.",
  (None, r"\b2022\b", r"income|pounds|£")),
 ("p9-50", "new", "near-miss", "On what date is the autumn navigation assessment held?", [],
  "Unanswerable: training-calendar.html dates only the March assessment (Saturday 15 March, Blackmere Edge) and says failed probationers may retake it 'at the autumn assessment', with no date.",
  (None, r"autumn", r"\b(January|February|March|April|May|June|July|August|September|October|November|December)\b")),
 # ---------------- new corpus: paraphrase ----------------
 ("p9-51", "new", "paraphrase", "Under the current rules, on which day and at what hour does the volunteer who takes the police's requests pass the job on to the next person?", ["Sunday"],
  "[callout-procedure-2025.md] The duty coordinator rota now hands over every Sunday at 18:00, so that the incoming coordinator starts the working week already on duty."),
 ("p9-52", "new", "paraphrase", "How many long toots should a stranded walker give to show they need help?", ["six", "6"],
  "[public-safety-advice.md] The international distress signal is six long blasts on a whistle, or six flashes of a torch, repeated every minute."),
 ("p9-53", "new", "paraphrase", "If your mobile cannot manage a spoken call, what must you have done in advance to reach the emergency services by message?", ["register", "registered"],
  "[public-safety-advice.md] This only works if you have registered your phone with the emergency text service beforehand, so register before your walk."),
 ("p9-54", "new", "paraphrase", "Which of the team's vehicles serves as the mobile command post?", ["Rescue 3"],
  "[bases-and-vehicles.txt] Rescue 3 is fitted out as the control vehicle, with a map table and a mast for the vehicle radio."),
 ("p9-55", "new", "paraphrase", "What load must every volunteer carry on the yearly timed climb to the top of the valley's loftiest peak?", ["15-kilogram", "15 kg", "15 kilograms"],
  "[membership-and-kit.md] Every member, including probationers, completes the fitness check each spring: an ascent from Glenharrow Base to the summit cairn of Scar Pike carrying a 15-kilogram pack, in under two hours."),
 ("p9-56", "new", "paraphrase", "How long must someone have been out on one rescue before they are forbidden to take the wheel of the team's trucks?", ["10 hours", "ten hours"],
  "[callout-procedure-2025.md] A member who has been on a callout for more than 10 hours must not drive a team vehicle afterwards, and should not drive their own car home; the base controller arranges lifts."),
 ("p9-57", "new", "paraphrase", "How big a cushion of savings, counted in months of outgoings, does the charity's policy aim to hold?", ["twelve to eighteen", "12 to 18", "12-18"],
  "[agm-minutes-2024-03-16.txt] The team holds reserves equal to about fourteen months of running costs, which is within the policy range of twelve to eighteen months."),
 ("p9-58", "new", "paraphrase", "Which veteran, the first woman ever to head one of the team's groups on the hill, was given honorary status for good?", ["Dorothy Keld", "Keld"],
  "[agm-minutes-2024-03-16.txt] Honorary life membership was awarded to Dorothy Keld, who joined the team in 1984 and served as its first female party leader."),
 ("p9-59", "new", "paraphrase", "How much warning does the team want from anyone organising a charity hike or a running competition in the hills?", ["eight weeks", "8 weeks"],
  "[public-safety-advice.md] Organisers of sponsored walks, fell races and other events on the fells should contact the team at least eight weeks before the event."),
 ("p9-60", "new", "paraphrase", "What was the team's upper-valley building used for before the rescuers took it over?", ["toll cottage", "toll"],
  "[bases-and-vehicles.txt] The Stoneybridge Outpost is a converted toll cottage at the top of the valley road, 11 kilometres above Glenharrow."),
]

ANSWERABLE_KINDS = {"fact": True, "yesno": True, "paraphrase": True, "near-miss": False}


def norm(s):
    return re.sub(r"\s+", " ", s).strip()


def clean_html(t):
    t = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", t)
    t = re.sub(r"(?s)<!--.*?-->", " ", t)
    t = re.sub(r"<[^>]+>", "\n", t)
    import html
    return html.unescape(t)


def load_docs(corpus):
    """Return {label: text}; label is the file name, 'file p.N' for PDF pages, 'abstracts.jsonl abs-NNN'."""
    docs = {}
    for f in sorted(DIRS[corpus].iterdir()):
        if f.name in SKIP or f.name.startswith("."):
            continue
        if f.suffix == ".pdf":
            import pymupdf
            for i, page in enumerate(pymupdf.open(f)):
                docs[f"{f.name} p.{i + 1}"] = page.get_text()
        elif f.suffix == ".jsonl":
            for line in f.read_text().splitlines():
                if line.strip():
                    o = json.loads(line)
                    docs[f"{f.name} {o['_id']}"] = o.get("title", "") + ".\n" + o["text"]
        elif f.suffix in (".html", ".htm"):
            docs[f.name] = clean_html(f.read_text())
        else:
            docs[f.name] = f.read_text().replace("**", "")
    return docs


def units(text, label):
    """Sentence-like units: split on newlines (not for PDF pages) and after . ! ? ;"""
    if ".pdf p." in label:
        text = text.replace("\n", " ")
    out = []
    for para in text.split("\n"):
        for s in re.split(r"(?<=[.!?])\s+", para):
            s = norm(s)
            if s:
                out.append(s)
    return out


def main():
    errors = []
    full, split = [], {"sample": [], "new": []}
    for entry in Q:
        qid, corpus, kind, question, answers, note = entry[:6]
        o = {"id": qid, "corpus": corpus, "question": question,
             "answerable": ANSWERABLE_KINDS[kind], "answers": answers, "kind": kind, "note": note}
        full.append(o)
        split[corpus].append({"question": question, "answers": answers, "answerable": o["answerable"],
                              "id": qid, "kind": kind})
    with open(HERE / "questions.jsonl", "w") as fh:
        for o in full:
            fh.write(json.dumps(o, ensure_ascii=False) + "\n")
    for c in split:
        with open(HERE / f"{c}.jsonl", "w") as fh:
            for o in split[c]:
                fh.write(json.dumps(o, ensure_ascii=False) + "\n")

    # ---- re-read and validate files ----
    rows = {}
    for name in ("questions.jsonl", "sample.jsonl", "new.jsonl"):
        rows[name] = []
        for n, line in enumerate((HERE / name).read_text().splitlines(), 1):
            try:
                rows[name].append(json.loads(line))
            except json.JSONDecodeError as e:
                errors.append(f"{name}:{n} does not parse: {e}")
    ids = [o["id"] for o in rows["questions.jsonl"]]
    if len(ids) != len(set(ids)):
        errors.append("duplicate ids")
    if len(ids) != 60:
        errors.append(f"expected 60 questions, got {len(ids)}")
    for c, name in (("sample", "sample.jsonl"), ("new", "new.jsonl")):
        want = [o["id"] for o in rows["questions.jsonl"] if o["corpus"] == c]
        got = [o["id"] for o in rows[name]]
        if want != got:
            errors.append(f"{name} ids differ from questions.jsonl")
        for o in rows[name]:
            if set(o) != {"question", "answers", "answerable", "id", "kind"}:
                errors.append(f"{name} {o.get('id')}: wrong keys {sorted(o)}")
    for o in rows["questions.jsonl"]:
        if set(o) != {"id", "corpus", "question", "answerable", "answers", "kind", "note"}:
            errors.append(f"{o['id']}: wrong keys")
        if o["kind"] not in ANSWERABLE_KINDS or o["answerable"] != ANSWERABLE_KINDS[o["kind"]]:
            errors.append(f"{o['id']}: answerable does not match kind")
        if bool(o["answers"]) != o["answerable"]:
            errors.append(f"{o['id']}: answers must be empty exactly for unanswerable")
        if o["answerable"] and not 1 <= len(o["answers"]) <= 4:
            errors.append(f"{o['id']}: 1-4 answers expected")
        if o["kind"] == "yesno" and o["answers"] not in (["yes"], ["no"]):
            errors.append(f"{o['id']}: yes/no gold must be ['yes'] or ['no']")
        n = int(o["id"].split("-")[1])
        if (o["corpus"] == "sample") != (n <= 20):
            errors.append(f"{o['id']}: id range does not match corpus")

    # ---- evidence checks ----
    docs = {c: load_docs(c) for c in DIRS}
    normdocs = {c: {k: norm(v) for k, v in d.items()} for c, d in docs.items()}
    for entry in Q:
        qid, corpus, kind, question, answers, note = entry[:6]
        if ANSWERABLE_KINDS[kind]:
            m = re.match(r"\[([^\]]+)\] (.+)$", note)
            if not m:
                errors.append(f"{qid}: note must start with [file] and a quote")
                continue
            label, quote = m.group(1), norm(m.group(2))
            if label not in normdocs[corpus]:
                errors.append(f"{qid}: unknown file label {label!r}")
                continue
            text = normdocs[corpus][label]
            if quote not in text:
                errors.append(f"{qid}: quote not found in {label}: {quote[:70]}")
            elif kind != "yesno" and not any(a.lower() in quote.lower() for a in answers):
                errors.append(f"{qid}: no answer string occurs in the quote")
            # one document answers it: the quote must not occur in another file
            others = [k for k, v in normdocs[corpus].items() if k != label and quote in v]
            if others:
                errors.append(f"{qid}: quote also occurs in {others}")
        else:
            fname, ent, forb = entry[6]
            hits = 0
            for label, text in docs[corpus].items():
                if fname and not label.startswith(fname):
                    continue
                us = units(text, label)
                for i, u in enumerate(us):
                    if ent is None or re.search(ent, u):
                        hits += 1
                        window = " ".join(us[i:i + 2])
                        if re.search(forb, window if ent else u):
                            errors.append(f"{qid}: forbidden /{forb}/ near /{ent}/ in {label}: {window[:100]}")
            if ent is not None and hits == 0:
                errors.append(f"{qid}: entity /{ent}/ not found anywhere (near miss should be near something)")

    # ---- corpus sanity: marker words only in script/style ----
    for label, text in docs["new"].items():
        for w in ("hmscriptmarker", "hmstylemarker"):
            if w in text:
                errors.append(f"marker {w} visible in {label}")

    # ---- counts table ----
    kinds = ["fact", "yesno", "near-miss", "paraphrase"]
    print(f"{'kind':<12}{'sample':>8}{'new':>6}{'total':>7}")
    for k in kinds:
        s = sum(1 for o in full if o["kind"] == k and o["corpus"] == "sample")
        nn = sum(1 for o in full if o["kind"] == k and o["corpus"] == "new")
        print(f"{k:<12}{s:>8}{nn:>6}{s + nn:>7}")
    s = sum(1 for o in full if o["corpus"] == "sample")
    print(f"{'total':<12}{s:>8}{len(full) - s:>6}{len(full):>7}")
    for c in ("sample", "new"):
        yes = sum(1 for o in full if o["corpus"] == c and o["answers"] == ["yes"])
        no = sum(1 for o in full if o["corpus"] == c and o["answers"] == ["no"] and o["kind"] == "yesno")
        print(f"yes/no {c}: {yes} yes, {no} no")
    wc = {f.name: len(re.findall(r"\S+", clean_html(f.read_text()) if f.suffix == ".html" else f.read_text()))
          for f in sorted(DIRS["new"].iterdir())}
    print("new corpus words:", wc)
    if errors:
        print("\nFAILED:")
        for e in errors:
            print(" -", e)
        sys.exit(1)
    print("\nall checks passed")


if __name__ == "__main__":
    main()
