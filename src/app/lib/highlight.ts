/**
 * Splits a memory's text into plain-text segments around the query terms that matched it, so
 * the UI can wrap the matches in <mark> elements without ever building HTML from data.
 */
import { wordTerm } from '../../core/domain/tokenize.ts';

export interface Segment {
  text: string;
  hit: boolean;
}

const WORD_ONLY = /^[\p{L}\p{N}_]+$/u;
const WORD_CHAR = /[\p{L}\p{N}_]/u;
const CJK = /[\u3040-\u30FF\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF\uAC00-\uD7A3]/u;

/** Terms from an explanation's lexical details (`matchedTerms`), de-duplicated, longest first. */
export function termsOf(details: Record<string, unknown> | undefined): string[] {
  const raw = details?.['matchedTerms'];
  if (!Array.isArray(raw)) return [];
  const terms = new Set<string>();
  for (const t of raw) if (typeof t === 'string' && t.trim() !== '') terms.add(t.toLowerCase());
  return [...terms].sort((a, b) => b.length - a.length);
}

/**
 * Case-insensitive matches of `terms` in `text`. Word terms are the lexical index's stems, so a
 * word is marked when its own term is one of them ("moved" for `move`, "offices" for `office`;
 * the tokeniser drops apostrophes, so `dont` also matches `don't`); stop words are never terms,
 * so they are never marked. Identifiers (`store.ts`, `#441`) and CJK bigrams match as substrings.
 */
export function highlight(text: string, terms: readonly string[]): Segment[] {
  if (terms.length === 0 || text === '') return [{ text, hit: false }];
  const lower = text.toLowerCase();
  // lower-casing can change lengths for a few characters; fall back to no highlighting then.
  if (lower.length !== text.length) return [{ text, hit: false }];
  const marks = new Uint8Array(text.length);
  for (const term of terms) {
    const isWord = WORD_ONLY.test(term) && !CJK.test(term);
    if (isWord) {
      // Walk word runs, comparing with apostrophes removed (as the tokeniser does).
      const runs = /[\p{L}\p{N}_'\u2019]+/gu;
      for (let m = runs.exec(lower); m; m = runs.exec(lower)) {
        const word = m[0].replace(/['\u2019]/g, '');
        if (word === term || wordTerm(word) === term) {
          // Trim apostrophes at the edges of the run from the mark.
          let start = m.index;
          let end = m.index + m[0].length;
          while (start < end && !WORD_CHAR.test(lower[start]!)) start++;
          while (end > start && !WORD_CHAR.test(lower[end - 1]!)) end--;
          marks.fill(1, start, end);
        }
      }
    } else {
      for (let at = lower.indexOf(term); at !== -1; at = lower.indexOf(term, at + 1)) {
        marks.fill(1, at, at + term.length);
      }
    }
  }
  const out: Segment[] = [];
  let start = 0;
  for (let i = 1; i <= text.length; i++) {
    if (i === text.length || marks[i] !== marks[start]) {
      out.push({ text: text.slice(start, i), hit: marks[start] === 1 });
      start = i;
    }
  }
  return out;
}
