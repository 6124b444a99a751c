"""The README cannot go stale where a test can see it: its first screen holds the two set-up commands
(.ci/run executes the first sh block) with their times, its links to files land on files, and its
links into bench/RESULTS.md (and RESULTS.md's own links) land on headings. docs/LAYOUT.md's package
layout names every module and only modules that exist, and its tools/ row every script there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
RESULTS = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8")
LAYOUT = (ROOT / "docs" / "LAYOUT.md").read_text(encoding="utf-8")
PACKAGE = ROOT / "ragchain_cli"
FIRST_SCREEN = 45  # lines


def _first_sh_block(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index("```sh") + 1
    end = lines.index("```", start)
    return [line for line in lines[start:end] if line.strip()]


def test_the_first_screen_holds_the_two_commands_and_their_times():
    commands = _first_sh_block(README)
    assert len(commands) == 2  # .ci/run runs exactly these
    assert commands[0].startswith("./install.sh && ") and commands[1].startswith("./install.sh --dev && ")
    screen = "\n".join(README.splitlines()[:FIRST_SCREEN])
    assert all(command in screen for command in commands)
    assert len(re.findall(r"\*\*about \d+ min\*\*", screen)) == 2  # each command's time, in bold


def test_the_readmes_links_to_files_land_on_files():
    targets = [m.split("#")[0] for m in re.findall(r"\]\(([^)#][^)]*)\)", README) if "://" not in m]
    assert targets and not [t for t in targets if not (ROOT / t).exists()]


def _layout() -> str:
    section = LAYOUT[LAYOUT.index("## The package"):]
    return section[section.index("```") + 3:section.index("```", section.index("```") + 3)]


def _sections(layout: str) -> dict[str, str]:
    """Each package's entry: its line (`  name/ ...`) and the deeper-indented lines under it."""
    sections: dict[str, str] = {}
    current = None
    for line in layout.splitlines():
        head = re.match(r"^  (\w+)/", line)
        if head:
            current = head.group(1)
            sections[current] = line
        elif current and re.match(r"^ {3,}\S", line):
            sections[current] += "\n" + line
        else:
            current = None
    return sections


def _packages() -> list[Path]:
    return sorted(p for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file())


def test_the_layout_names_every_module_and_package():
    layout = _layout()
    sections = _sections(layout)
    top = [p.name for p in PACKAGE.glob("*.py")]
    missing = [name for name in top if not re.search(rf"(?<![\w/]){re.escape(name)}\b", layout)]
    for package in _packages():
        entry = sections.get(package.name)
        if entry is None:
            missing.append(f"{package.name}/")
            continue
        for child in sorted(package.iterdir()):
            if child.suffix == ".py" and child.name != "__init__.py" and child.name not in entry:
                missing.append(f"{package.name}/{child.name}")
            if child.is_dir() and (child / "__init__.py").is_file() and f"{child.name}/" not in entry:
                missing.append(f"{package.name}/{child.name}/")
    assert not missing, f"docs/LAYOUT.md misses: {missing}"


def test_the_layout_names_nothing_that_does_not_exist():
    sections = _sections(_layout())
    stale = [f"{package}/" for package in sections if not (PACKAGE / package).is_dir()]
    for package, entry in sections.items():
        for name in re.findall(r"\b(\w+\.py)\b", entry):
            if not (PACKAGE / package / name).is_file():
                stale.append(f"{package}/{name}")
    for line in re.findall(r"(?m)^  (?! )(?!\w+/).*$", _layout()):  # the top-level modules' lines
        stale += [n for n in re.findall(r"\b(\w+\.py)\b", line) if not (PACKAGE / n).is_file()]
    assert not stale, f"docs/LAYOUT.md names what is not there: {stale}"


def test_the_layout_names_every_script_of_tools_and_only_those():
    row = next(line for line in LAYOUT.splitlines() if line.startswith("| `tools/` |"))
    scripts = {p.name for p in (ROOT / "tools").rglob("*.py") if p.name != "__init__.py"}
    assert set(re.findall(r"(?<![\w/])(\w+\.py)\b", row)) == scripts


def anchor(heading: str) -> str:
    """GitHub's anchor for a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(text: str) -> set[str]:
    return {anchor(m.group(1)) for m in re.finditer(r"(?m)^#+ (.+)$", text)}


def test_links_into_results_land_on_headings():
    headings = _anchors(RESULTS)
    linked = re.findall(r"\(bench/RESULTS\.md#([\w-]+)\)", README) + re.findall(r"\]\(#([\w-]+)\)", RESULTS)
    assert len(linked) >= 10
    assert not [name for name in linked if name not in headings]


def test_results_opens_with_the_current_figures():
    head = "\n".join(RESULTS.splitlines()[:45])
    assert "## Current figures" in head and "held-out" in head and "in-sample" in head
