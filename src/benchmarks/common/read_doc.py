"""Read the text of a document: .docx, .xlsx, .pptx, .pdf, or any plain-text file.

    python3 scripts/read_doc.py FILE [FILE ...]      prints each file's text
    python3 read_doc.py --json ROOT REL [REL ...]    prints {REL: text} as one JSON object

Standard library only. Word paragraphs in order; every sheet of a workbook as tab-separated rows
(shared strings resolved, formulas by their saved values); each slide's text; a PDF's text from
its content streams (FlateDecode inflated), or from `pdftotext` when that is installed. Text a PDF
stores as font glyph codes (as word processors and browsers often write it) needs the font's
character map, which this reader does not parse: it says so instead of leaving words out
silently. A file it cannot read gets a one-line note in place of its text. It never runs anything it reads.
"""

import json
import re
import shutil
import subprocess
import sys
import zipfile
import zlib
import xml.etree.ElementTree as ET

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
PR = "{http://schemas.openxmlformats.org/package/2006/relationships}"


def docx(path):
    with zipfile.ZipFile(path) as z:
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


def cell_value(c, shared):
    kind = c.get("t")
    if kind == "inlineStr":
        return "".join(t.text or "" for t in c.iter(S + "t"))
    v = c.find(S + "v")
    if v is None or v.text is None:
        return ""
    if kind == "s":
        i = int(v.text)
        return shared[i] if i < len(shared) else ""
    return v.text


def xlsx(path):
    with zipfile.ZipFile(path) as z:
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
            name = target.lstrip("/") if target.startswith("/") else "xl/" + target
            rows = []
            for row in ET.fromstring(z.read(name)).iter(S + "row"):
                cells = []
                for c in row.iter(S + "c"):
                    at = column_index(c.get("r"))
                    cells.extend([""] * (at - len(cells)))
                    cells.append(cell_value(c, shared))
                rows.append("\t".join(cells).rstrip("\t"))
            parts.append("## sheet " + (sheet.get("name") or "?") + "\n" + "\n".join(rows))
    return "\n\n".join(parts)


def pptx(path):
    with zipfile.ZipFile(path) as z:
        slides = sorted(
            (n for n in z.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)),
            key=lambda n: int(re.search(r"(\d+)\.xml$", n).group(1)),
        )
        parts = []
        for i, name in enumerate(slides, 1):
            texts = []
            for para in ET.fromstring(z.read(name)).iter(A + "p"):
                text = "".join(t.text or "" for t in para.iter(A + "t"))
                if text.strip():
                    texts.append(text)
            parts.append("## slide %d\n%s" % (i, "\n".join(texts)))
    return "\n\n".join(parts)


STREAM = re.compile(rb"<<(.*?)>>\s*stream\r?\n(.*?)\r?\nendstream", re.S)
SHOW = re.compile(rb"\((?:\\.|[^\\)])*\)\s*(?:Tj|'|\")|\[(?:[^\]]*)\]\s*TJ|T\*|Td|TD|Tm|ET")
# A text run written as glyph codes (<0012002f>Tj, or <...> inside a TJ array): only the font's
# own character map can turn it into characters, which this reader does not parse.
HEX_SHOW = re.compile(rb"<[0-9A-Fa-f\s]+>\s*Tj|\[[^\]]*<[0-9A-Fa-f\s]+>[^\]]*\]\s*TJ")
LITERAL = re.compile(rb"\((?:\\.|[^\\)])*\)")


def unescape(raw):
    out, i = bytearray(), 0
    escapes = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}
    while i < len(raw):
        ch = raw[i : i + 1]
        if ch == b"\\" and i + 1 < len(raw):
            nxt = raw[i + 1 : i + 2]
            octal = re.match(rb"[0-7]{1,3}", raw[i + 1 : i + 4])
            if octal:
                out.append(int(octal.group(0), 8) & 0xFF)
                i += 1 + len(octal.group(0))
                continue
            out += escapes.get(nxt, nxt)
            i += 2
            continue
        out += ch
        i += 1
    # Simple fonts mostly use the Windows encoding: cp1252 gives its dashes and quotes.
    return out.decode("cp1252", "replace")


def pdf_streams(path):
    """The PDF's literal text, line by line, and how many runs were glyph codes it cannot read."""
    data = open(path, "rb").read()
    lines, current, coded = [], [], 0
    for head, body in STREAM.findall(data):
        if b"/FlateDecode" in head:
            try:
                body = zlib.decompress(body)
            except zlib.error:
                continue
        elif b"/Filter" in head:
            continue
        coded += len(HEX_SHOW.findall(body))
        for m in SHOW.finditer(body):
            token = m.group(0)
            if token in (b"T*", b"Td", b"TD", b"Tm", b"ET") or token.endswith((b"'", b'"')):
                if current:
                    lines.append("".join(current))
                    current = []
                if token in (b"T*", b"Td", b"TD", b"Tm", b"ET"):
                    continue
            current.extend(unescape(s[1:-1]) for s in LITERAL.findall(token))
    if current:
        lines.append("".join(current))
    return "\n".join(line for line in lines if line.strip()), coded


def pdf(path):
    tool = shutil.which("pdftotext")
    if tool:
        done = subprocess.run([tool, "-layout", path, "-"], capture_output=True, timeout=120)
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout.decode("utf-8", "replace")
    text, coded = pdf_streams(path)
    if coded and not text.strip():
        return (
            "(this PDF stores its text as font glyph codes, which read_doc.py cannot turn into "
            "characters: read it with pdftotext (poppler-utils) if it is installed, or ask for "
            "the document in another format)"
        )
    if coded:
        runs = "1 more text run of this PDF is" if coded == 1 else "%d more text runs of this PDF are" % coded
        return text + (
            "\n(%s stored as font glyph codes, which read_doc.py cannot turn into characters: "
            "words are missing above; pdftotext reads them)" % runs
        )
    return text if text.strip() else "(no text found in this PDF: it may be scanned images)"


READERS = {".docx": docx, ".xlsx": xlsx, ".xlsm": xlsx, ".pptx": pptx, ".pdf": pdf}


def read(path):
    suffix = path[path.rfind(".") :].lower() if "." in path.rsplit("/", 1)[-1] else ""
    reader = READERS.get(suffix)
    try:
        if reader is not None:
            return reader(path)
        raw = open(path, "rb").read()
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return "(binary file, %d bytes: not a format read_doc.py reads)" % len(raw)
    except Exception as err:  # an unreadable document is an answer too, not a crash
        return "(could not read this %s file: %s)" % (suffix or "", type(err).__name__)


def main(argv):
    if len(argv) >= 2 and argv[1] == "--json":
        root, rels = argv[2], argv[3:]
        json.dump({rel: read(root + "/" + rel) for rel in rels}, sys.stdout)
        return 0
    files = argv[1:]
    if not files:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for path in files:
        if len(files) > 1:
            print("=== %s ===" % path)
        print(read(path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
