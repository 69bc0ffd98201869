/**
 * Which words differ between two texts (a conflict's old and new memory), for highlighting:
 * a word-level longest common subsequence, compared case-insensitively. Whitespace and
 * punctuation keep their place; only words are marked. Pure, and bounded: texts longer than
 * `MAX_WORDS` words are not compared (nothing is marked).
 */

export interface DiffSegment {
  text: string;
  /** Not in the other text. */
  changed: boolean;
}

const MAX_WORDS = 1500;
const TOKEN = /[\p{L}\p{N}_'’]+|[^\p{L}\p{N}_'’]+/gu;
const WORD = /^[\p{L}\p{N}_'’]+$/u;

function tokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** Marks, in each text, the words that are not part of their longest common word sequence. */
export function wordDiff(a: string, b: string): { a: DiffSegment[]; b: DiffSegment[] } {
  const ta = tokens(a);
  const tb = tokens(b);
  const wa = ta.map((t, i) => ({ t, i })).filter((x) => WORD.test(x.t));
  const wb = tb.map((t, i) => ({ t, i })).filter((x) => WORD.test(x.t));
  if (wa.length > MAX_WORDS || wb.length > MAX_WORDS) return { a: [{ text: a, changed: false }], b: [{ text: b, changed: false }] };
  const n = wa.length;
  const m = wb.length;
  // lcs[i][j]: the LCS length of wa[i..] and wb[j..], in one flat array.
  const lcs = new Uint16Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[at(i, j)] = wa[i]!.t.toLowerCase() === wb[j]!.t.toLowerCase() ? lcs[at(i + 1, j + 1)]! + 1 : Math.max(lcs[at(i + 1, j)]!, lcs[at(i, j + 1)]!);
    }
  }
  const keepA = new Set<number>();
  const keepB = new Set<number>();
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (wa[i]!.t.toLowerCase() === wb[j]!.t.toLowerCase()) {
      keepA.add(wa[i]!.i);
      keepB.add(wb[j]!.i);
      i++;
      j++;
    } else if (lcs[at(i + 1, j)]! >= lcs[at(i, j + 1)]!) i++;
    else j++;
  }
  const segments = (ts: string[], keep: Set<number>): DiffSegment[] => {
    const out: DiffSegment[] = [];
    ts.forEach((t, i) => {
      const changed = WORD.test(t) && !keep.has(i);
      const last = out[out.length - 1];
      // Join a changed run across the spaces between its words.
      if (last && (last.changed === changed || (!WORD.test(t) && /^\s+$/.test(t) && last.changed && WORD.test(ts[i + 1] ?? '') && !keep.has(i + 1)))) last.text += t;
      else out.push({ text: t, changed });
    });
    return out;
  };
  return { a: segments(ta, keepA), b: segments(tb, keepB) };
}
