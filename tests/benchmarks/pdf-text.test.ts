// PDFs as the improver sees them (pdf.js through unpdf) and as an agent's read_doc.py reads them.
// The fixtures are real PDFs written by cairo (rsvg-convert from the .svg beside each, the same
// library browsers and office suites use): cairo stores Latin text as literal strings and every
// other script as font glyph codes (<0001000200...>Tj), the case issue 32 found read as nothing.
import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deliverableTexts, READ_DOC_SCRIPT } from "../../src/benchmarks/common/deliverables.ts";
import { pdfText } from "../../src/benchmarks/common/pdf-text.ts";
import { runProcess } from "../../src/core/lib/process.ts";
import { resolvePython } from "../../src/core/lib/python.ts";
import { testTempDir } from "../helpers/temp.ts";

const FIXTURES = join(import.meta.dir, "fixtures");

/** A one-page PDF whose only text is glyph codes, uncompressed (as a word processor writes it). */
function glyphOnlyPdf(path: string): void {
  const content = "BT /F1 12 Tf 72 720 Td <00240025> Tj ET";
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  let body = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) body += `${String(o).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  writeFileSync(path, body, "latin1");
}

describe("pdfText: what the improver and the selector see", () => {
  test("text stored as glyph codes reads as its words, in every script", async () => {
    expect(await pdfText(join(FIXTURES, "glyphs.pdf"))).toBe(
      "Σύνολο ταξιδιών: 455,25 €\nИтого по офису: 279,75\nApproved — Q3 ✓",
    );
  });

  test("pages are marked when there are several; a page without text says so", async () => {
    expect(await pdfText(join(FIXTURES, "pages.pdf"))).toBe(
      [
        "## Page 1",
        "Quarterly expense memo",
        "Travel total: 455.25 EUR — approved ✓",
        "Office supplies were 279.75 in Q3.",
        "## Page 2",
        "(no text)",
      ].join("\n"),
    );
    expect(await pdfText(join(FIXTURES, "blank.pdf"))).toBe(
      "(no text in this PDF's one page: it may be a scanned image)",
    );
  });

  test("a file that is not a PDF, or is not there, says so in one line", async () => {
    const dir = testTempDir("h2-pdf-");
    writeFileSync(join(dir, "fake.pdf"), "not a pdf at all");
    expect(await pdfText(join(dir, "fake.pdf"))).toMatch(/^\(this PDF could not be read: .+\)$/);
    expect(await pdfText(join(dir, "missing.pdf"))).toMatch(
      /^\(this PDF could not be read: ENOENT/,
    );
  });

  test("a deliverable PDF is read by pdf.js, the other documents by read_doc.py", async () => {
    const out = join(testTempDir("h2-pdf-out-"), "output");
    mkdirSync(out, { recursive: true });
    copyFileSync(join(FIXTURES, "glyphs.pdf"), join(out, "memo.pdf"));
    const texts = await deliverableTexts(out, process.env, 10_000);
    expect(texts["memo.pdf"]).toContain("Итого по офису: 279,75");
  });
});

describe("read_doc.py, the agent's reader: says what it cannot read", () => {
  /** read_doc.py with no pdftotext on PATH (the standard-library path). */
  async function readDoc(path: string): Promise<string> {
    const python = (await resolvePython(process.env)) as string;
    const empty = testTempDir("h2-nopath-");
    const exit = await runProcess({
      argv: [python, READ_DOC_SCRIPT, path],
      env: { PATH: empty, HOME: empty },
      timeoutMs: 60_000,
    });
    expect(exit.code).toBe(0);
    return exit.stdout;
  }

  test("literal text is read; glyph-coded runs are counted and named, never dropped silently", async () => {
    const text = await readDoc(join(FIXTURES, "glyphs.pdf"));
    expect(text).toContain("Approved — Q3");
    expect(text).toContain(
      "(6 more text runs of this PDF are stored as font glyph codes, which read_doc.py cannot turn into characters",
    );
    const pages = await readDoc(join(FIXTURES, "pages.pdf"));
    // A new text position starts a new line (the heading is not run into the next line).
    expect(pages).toContain("Quarterly expense memo\nTravel total: 455.25 EUR — approved");
  });

  test("a PDF whose text is all glyph codes says it cannot, and what to use instead", async () => {
    const path = join(testTempDir("h2-glyph-only-"), "coded.pdf");
    glyphOnlyPdf(path);
    expect(await readDoc(path)).toContain(
      "this PDF stores its text as font glyph codes, which read_doc.py cannot turn into characters: read it with pdftotext",
    );
    expect(await readDoc(join(FIXTURES, "blank.pdf"))).toContain(
      "(no text found in this PDF: it may be scanned images)",
    );
  });
});
