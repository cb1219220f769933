"""Text of office deliverables for the improver's evidence, with the standard library only.

Usage: python3 office_text.py ROOT REL... ; prints one JSON object {rel: text}. Handles .docx
(paragraphs and table cells), .xlsx (every sheet as tab-separated rows, shared strings resolved,
formulas shown by their cached values) and .pptx (each slide's text). A file it cannot read gets a
one-line note instead of text. It never runs anything from the files it reads.
"""

import json
import re
import sys
import zipfile
import xml.etree.ElementTree as ET

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
PR = "{http://schemas.openxmlformats.org/package/2006/relationships}"


def docx(z):
    root = ET.fromstring(z.read("word/document.xml"))
    lines = []
    for para in root.iter(W + "p"):
        text = "".join(t.text or "" for t in para.iter(W + "t"))
        if text.strip():
            lines.append(text)
    return "\n".join(lines)


def column_index(ref):
    letters = re.match(r"[A-Z]+", ref or "")
    n = 0
    for ch in letters.group(0) if letters else "":
        n = n * 26 + (ord(ch) - 64)
    return max(n - 1, 0)


def xlsx(z):
    shared = []
    if "xl/sharedStrings.xml" in z.namelist():
        for si in ET.fromstring(z.read("xl/sharedStrings.xml")).iter(S + "si"):
            shared.append("".join(t.text or "" for t in si.iter(S + "t")))
    book = ET.fromstring(z.read("xl/workbook.xml"))
    rels = ET.fromstring(z.read("xl/_rels/workbook.xml.rels"))
    targets = {r.get("Id"): r.get("Target") for r in rels.iter(PR + "Relationship")}
    parts = []
    for sheet in book.iter(S + "sheet"):
        target = targets.get(sheet.get(R + "id"), "")
        path = target.lstrip("/") if target.startswith("/") else "xl/" + target
        rows = []
        for row in ET.fromstring(z.read(path)).iter(S + "row"):
            cells = []
            for c in row.iter(S + "c"):
                v = c.find(S + "v")
                kind = c.get("t")
                if kind == "inlineStr":
                    value = "".join(t.text or "" for t in c.iter(S + "t"))
                elif v is None:
                    value = ""
                elif kind == "s":
                    value = shared[int(v.text)] if v.text and int(v.text) < len(shared) else ""
                else:
                    value = v.text or ""
                at = column_index(c.get("r"))
                cells.extend([""] * (at - len(cells)))
                cells.append(value)
            rows.append("\t".join(cells).rstrip("\t"))
        parts.append("## sheet " + (sheet.get("name") or "?") + "\n" + "\n".join(rows))
    return "\n\n".join(parts)


def pptx(z):
    slides = sorted(
        (n for n in z.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)),
        key=lambda n: int(re.search(r"(\d+)", n.rsplit("/", 1)[1]).group(1)),
    )
    parts = []
    for i, name in enumerate(slides, 1):
        root = ET.fromstring(z.read(name))
        texts = []
        for para in root.iter(A + "p"):
            text = "".join(t.text or "" for t in para.iter(A + "t"))
            if text.strip():
                texts.append(text)
        parts.append("## slide %d\n%s" % (i, "\n".join(texts)))
    return "\n\n".join(parts)


READERS = {".docx": docx, ".xlsx": xlsx, ".xlsm": xlsx, ".pptx": pptx}


def main(argv):
    root, rels = argv[1], argv[2:]
    out = {}
    for rel in rels:
        suffix = rel[rel.rfind(".") :].lower() if "." in rel else ""
        try:
            with zipfile.ZipFile(root + "/" + rel) as z:
                out[rel] = READERS[suffix](z)
        except Exception as err:  # a deliverable that does not open is evidence too
            out[rel] = "(could not read this %s file: %s)" % (suffix, type(err).__name__)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv)
