// A PDF's text as the improver and the selector see it, read with pdf.js (through `unpdf`, which
// bundles it without native parts): fonts' own character maps are applied, so text stored as
// glyph codes — what word processors and browsers write — reads as words, not as nothing. Pages
// are marked when there are several; a PDF without any text says so (scanned pages), and one
// pdf.js cannot open says why. Never throws. The agent-side reader (read_doc.py, standard-library
// Python) cannot map glyph codes and says so instead (docs/benchmarks.md "Documents").

import { readFileSync } from "node:fs";

export async function pdfText(path: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(path));
  } catch (err) {
    return `(this PDF could not be read: ${(err as Error).message})`;
  }
  try {
    const { extractText, getDocumentProxy } = await import("unpdf");
    const doc = await getDocumentProxy(bytes, { verbosity: 0 });
    try {
      const { text } = await extractText(doc, { mergePages: false });
      const pages = text.map((t) => t.trim());
      if (pages.every((t) => t === "")) {
        return pages.length === 1
          ? "(no text in this PDF's one page: it may be a scanned image)"
          : `(no text in this PDF's ${pages.length} pages: they may be scanned images)`;
      }
      if (pages.length === 1) return pages[0] as string;
      return pages.map((t, i) => `## Page ${i + 1}\n${t === "" ? "(no text)" : t}`).join("\n");
    } finally {
      await doc.loadingTask.destroy();
    }
  } catch (err) {
    return `(this PDF could not be read: ${(err as Error).message})`;
  }
}
