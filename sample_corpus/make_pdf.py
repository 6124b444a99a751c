"""Regenerate sample_corpus/field-guide.pdf, a small four-page text PDF for the demo corpus.

Run:  python sample_corpus/make_pdf.py
All text is original to this project. Each page carries distinct content so that page
numbers in citations matter (the Heron Inlet closure appears on page 2 only). Metadata
dates are fixed and no new file ID is generated, so repeated runs give the same bytes.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

OUT = Path(__file__).resolve().parent / "field-guide.pdf"
TITLE = "Lakeshore Sampling Field Guide"
FIXED_DATE = "D:20240315090000+00'00'"

PAGES: list[tuple[str, str]] = [
    (
        "1. Purpose and preparation",
        "This guide is for staff and students who collect water, plankton and sediment samples "
        "along the shores of Lake Aldermere for the Brackenridge Lake Field Station. It describes "
        "the sampling sites, the rules that protect wildlife, how samples must be handled once "
        "collected, and what to do in an emergency. Carry a printed copy on every trip.\n\n"
        "Shoreline sampling complements the fortnightly measurements at the deep station in the "
        "middle of the lake. The shore is where streams bring in nutrients and sediment, where "
        "most fish spawn and where changes caused by people are first seen.\n\n"
        "Before you go\n"
        "- Enter the trip in the boat log with route, crew and expected return time.\n"
        "- Check the wind forecast; trips are cancelled above 10 metres per second.\n"
        "- Make sure at least two people are going and one holds the boat licence.\n"
        "- Check the seasonal restrictions for each site on the next page.\n\n"
        "Equipment checklist\n"
        "- Life jackets for everyone, and dry suits from October to May.\n"
        "- Handheld radio, first aid kit and thermal blanket.\n"
        "- Water sampler, plankton net with a 50 micrometre mesh, and the sediment corer.\n"
        "- Pre-labelled bottles, a cool box with ice packs, and the field notebook.\n"
        "- Handheld temperature and oxygen probe, calibrated within the last month.",
    ),
    (
        "2. Sampling sites and seasonal restrictions",
        "The shoreline programme uses seven fixed sites, numbered clockwise from the station jetty.\n\n"
        "Site 1, Station Jetty. Reference site with easy access on foot. Sample from the end of the "
        "jetty, never from the boat ramp.\n\n"
        "Site 2, Fernbrook Pier. Influenced by the village harbour. Sample on weekdays before "
        "09:00 to avoid ferry traffic.\n\n"
        "Site 3, Mill Creek mouth. The creek carries fine sediment after rain. Wading is allowed "
        "only where the water is shallower than 0.8 metres; otherwise sample from a boat.\n\n"
        "Site 4, Birch Point. Reachable only by boat because of steep rocks.\n\n"
        "Site 5, Reed Bay. Shallow bay with dense reeds. Keep to the marked channel to avoid "
        "damaging the vegetation.\n\n"
        "Site 6, South Narrows. Strong currents when the wind blows from the north; sample from "
        "an anchored boat.\n\n"
        "Site 7, Heron Inlet. A pair of ospreys nests in the dead pine on the inlet's west side. "
        "Heron Inlet is closed to all sampling from 1 April to 15 July to protect the nesting "
        "birds. During this period, stay at least 200 metres from the nest tree and take the "
        "replacement sample at the entrance of the inlet instead. Outside the closed season, "
        "approach slowly and keep noise to a minimum.\n\n"
        "If a site cannot be sampled, record the reason in the field notebook. A missing sample "
        "is better than a sample taken in the wrong place.",
    ),
    (
        "3. Handling samples",
        "Samples change quickly once they are out of the lake. Algae keep growing or die, bacteria "
        "consume nutrients, and warm conditions speed up both. Follow these rules on every trip.\n\n"
        "Chlorophyll samples: keep bottles dark and cool in the cool box and filter them in the "
        "wet laboratory within four hours of collection. Fold the filters, wrap them in foil and "
        "freeze them at minus twenty degrees.\n\n"
        "Nutrient samples: filter through a 0.45 micrometre syringe filter in the field when "
        "possible, keep at about 4 degrees Celsius and freeze within 24 hours.\n\n"
        "Plankton samples: preserve with Lugol's iodine solution, a few drops per 100 millilitres, "
        "until the sample is the colour of weak tea. Store the bottles in the dark.\n\n"
        "Sediment cores: keep upright and cool, and slice them on the day of collection.\n\n"
        "Labels\n"
        "Every container carries a label written in pencil or waterproof ink in the form "
        "BLFS-YYYYMMDD-site-depth, for example BLFS-20240612-S3-0.5 for a sample taken at "
        "Mill Creek mouth at half a metre. Enter the same code in the field notebook together "
        "with the time, the weather, the water temperature and the name of the collector.\n\n"
        "Chain of custody\n"
        "When you hand samples to the laboratory, both people sign the sample register. "
        "Samples without a register entry are not analysed.",
    ),
    (
        "4. Emergencies",
        "Radio: the station listens on marine VHF channel 72 during working hours and whenever a "
        "boat is signed out in the boat log. In an emergency, call the station first and then the "
        "national emergency number.\n\n"
        "Person in the water: stop the engine and keep the person in sight. Do not jump in. Throw "
        "the rescue line or reach with the boat hook, and bring the person aboard over the stern "
        "or the lowest point of the side. Expect the first minute to be the hardest for them: "
        "sudden cold makes people gasp and breathe fast, so tell them to float on their back and "
        "calm their breathing before trying to help themselves.\n\n"
        "Hypothermia: signs include shivering, clumsy movements, slurred speech and confusion. "
        "Move the person out of the wind, remove wet clothing, wrap them in dry layers and the "
        "thermal blanket, and give warm sweet drinks only if they are fully alert. Handle them "
        "gently and return to the station; do not rub their arms or legs.\n\n"
        "Injuries: the first aid kit is in the yellow dry bag under the front seat of each boat. "
        "Report every injury, however small, to the safety officer on the same day.\n\n"
        "Lost or overdue: if a boat has not signed back in one hour after its expected return "
        "time, the duty officer starts a search using the route given in the boat log.",
    ),
]


def build(out: Path = OUT) -> Path:
    doc = pymupdf.open()
    for number, (heading, body) in enumerate(PAGES, start=1):
        page = doc.new_page(width=595, height=842)  # A4 in points
        y = 60
        if number == 1:
            page.insert_text((60, y), TITLE, fontname="hebo", fontsize=20)
            page.insert_text((60, y + 22), "Brackenridge Lake Field Station - 2024 edition", fontname="helv", fontsize=11)
            y += 50
        page.insert_text((60, y), heading, fontname="hebo", fontsize=14)
        rect = pymupdf.Rect(60, y + 15, 535, 790)
        spare = page.insert_textbox(rect, body, fontname="helv", fontsize=10.5, lineheight=1.35)
        if spare < 0:
            raise SystemExit(f"page {number}: text does not fit ({spare:.0f} pt over)")
        page.insert_text((60, 815), f"{TITLE} - page {number} of {len(PAGES)}", fontname="helv", fontsize=8)
    doc.set_metadata(
        {
            "title": TITLE,
            "author": "Brackenridge Lake Field Station",
            "subject": "Shoreline sampling sites, sample handling and emergencies",
            "keywords": "limnology, sampling, field safety",
            "creator": "sample_corpus/make_pdf.py",
            "producer": "PyMuPDF",
            "creationDate": FIXED_DATE,
            "modDate": FIXED_DATE,
        }
    )
    doc.save(out, garbage=4, deflate=True, no_new_id=True)
    doc.close()
    return out


if __name__ == "__main__":
    path = build()
    print(f"wrote {path} ({path.stat().st_size} bytes)")
