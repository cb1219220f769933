// Orders paths the way every listing, diff and fingerprint in harness2 does: by Unicode code point
// segment by segment, as Python orders str and Path (docs/differences.md H22). Split from
// safe-fs.ts, which re-exports it.

/** Orders two strings by Unicode code point (Python's str order), not by UTF-16 code unit. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca === cb) continue;
    // Only surrogates (astral code points) sort differently by unit and by code point.
    const sa = ca >= 0xd800 && ca <= 0xdfff;
    const sb = cb >= 0xd800 && cb <= 0xdfff;
    if (sa !== sb) return sa ? 1 : -1;
    return ca - cb;
  }
  return a.length - b.length;
}

/**
 * Orders `/`-separated paths segment by segment (`a/b` < `a-b/x` < `a.b`), like Python's Path
 * (docs/differences.md H22: a plain string sort would order errors and fingerprints differently).
 */
export function comparePathSegments(a: string, b: string): number {
  const sa = a.split("/");
  const sb = b.split("/");
  const n = Math.min(sa.length, sb.length);
  for (let i = 0; i < n; i++) {
    const c = compareCodePoints(sa[i] as string, sb[i] as string);
    if (c !== 0) return c;
  }
  return sa.length - sb.length;
}

/** `paths` as a new array in comparePathSegments order. */
export function sortPaths(paths: Iterable<string>): string[] {
  return [...paths].sort(comparePathSegments);
}
