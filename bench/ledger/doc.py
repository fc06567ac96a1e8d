"""The ledger as Markdown (the section of docs/EXPERIMENTS.md between BEGIN and END), and back.

render(entries, header) is the whole section; parse(section) gives, per claim name, what a reader of
the section cannot get from the definitions: the printed value, the command and the status. The test
rebuilds the section from the definitions and those cells, so a table edited by hand, or definitions
changed without regenerating, fail it."""
import os
import re

from ledger.core import PAPERS, show

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs")

BEGIN = "<!-- BEGIN claims ledger: written by `bin/smartssd bench claims --write-doc`; edit bench/ledger/, not this -->"
END = "<!-- END claims ledger -->"
COLUMNS = ["claim", "setup", "paper", "ours", "ours / paper", "holds", "measured by", "where it differs"]


def cell(s):
    return str(s).replace("|", "\\|")


def uncell(s):
    return s.replace("\\|", "|")


def split_row(line):
    parts = re.split(r"(?<!\\)\|", line.strip())
    return [uncell(p.strip()) for p in parts[1:-1]]


def slug(heading):
    """GitHub's anchor of a Markdown heading"""
    s = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return s.replace(" ", "-")


def heading(link, docs=DOCS):
    """The heading a link FILE.md#anchor points to (ValueError when the file has none with that anchor)."""
    page, anchor = link.split("#", 1)
    with open(os.path.join(docs, page), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#+ (.*)", line)
            if m and slug(m.group(1)) == anchor:
                return m.group(1).strip().replace("`", "")
    raise ValueError(f"{page} has no heading with the anchor #{anchor}")


def verdict(e):
    if e["status"] != "measured":
        return "not measured"
    return "yes" if e["holds"] else "**no**"


def where(e):
    if e["status"] != "measured":
        return e["why"]
    if e["holds"]:
        return ""
    return f"[{e['doc'].split('#')[0]}: {heading(e['doc'])}]({e['doc']})"


def row(e):
    unit = f" {e['unit']}" if e["status"] == "measured" and e["unit"] else ""
    ratio = show(e.get("ratio")) if e.get("ratio") is not None else ""
    cells = [e["claim"], e["setup"], show(e.get("paper", "")), f"{show(e['ours'])}{unit}" if e["status"] == "measured"
             else "", ratio, verdict(e), f"`{e['command']}`", where(e)]
    return "| " + " | ".join(cell(c) for c in cells) + " |"


def counts(entries):
    m = [e for e in entries if e["status"] == "measured"]
    held = sum(e["holds"] for e in m)
    return f"{len(entries)} claims: {held} hold, {len(m) - held} do not, {len(entries) - len(m)} not measured"


def render(entries, header):
    out = [BEGIN, "", header, "", f"All papers: {counts(entries)}.", ""]
    for p in PAPERS:
        mine = [e for e in entries if e["paper_name"] == p]
        if not mine:
            continue
        out += [f"#### {p}", "", f"{counts(mine)}.", "", "| " + " | ".join(COLUMNS) + " |",
                "|" + "---|" * len(COLUMNS)]
        out += [row(e) for e in mine]
        out.append("")
    out.append(END)
    return "\n".join(out) + "\n"


def section(text):
    """The ledger section of a document (BEGIN to END, with the newline after END), or None."""
    i = text.find(BEGIN)
    if i < 0:
        return None
    j = text.index(END, i) + len(END) + 1
    return text[i:j]


def replace(text, new):
    old = section(text)
    if old is None:
        raise ValueError("the document has no claims ledger section (the BEGIN and END markers)")
    return text.replace(old, new)


def parse(sec):
    """(header, {claim name: {"ours": str, "command": str, "holds": str, "why": str}}) of a section"""
    lines = sec.split("\n")
    header, paper, rows = lines[2], None, {}
    for line in lines:
        if line.startswith("#### "):
            paper = line[5:]
        elif line.startswith("| ") and not line.startswith("| claim |"):
            c = split_row(line)
            rows[f"{paper}: {c[0]}"] = {"ours": c[3], "command": c[6][1:-1], "holds": c[5], "why": c[7]}
    return header, rows
