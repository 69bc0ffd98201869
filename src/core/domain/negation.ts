/**
 * Negation words and the reference negation rules (AI-Houkai's `_NEG`, `_count_neg`,
 * `_negation_diff`), shared by the conflict scan (conflicts.ts) and the contradiction patterns
 * (contradiction.ts).
 */
import { tokenize } from './tokenize.ts';

/**
 * AI-Houkai's `_NEG`, verbatim. The apostrophe forms can never match a token (the tokeniser deletes
 * `'` and `’` first, so "don't" is counted as `dont`); they are kept for fidelity.
 */
export const NEGATION_WORDS: readonly string[] = [
  'not', 'never', 'no', 'dont', "don't", 'doesnt', "doesn't", 'wont', "won't", 'shouldnt', "shouldn't",
  'cant', "can't", 'without', 'avoid', 'neither', 'nor', 'nothing', 'nobody', 'nowhere', 'none',
];

/**
 * {@link NEGATION_WORDS} plus the n't contractions the reference list misses (`isn't` → `isnt`,
 * `aren't`, `wasn't`, `didn't`, …) and `cannot`. Used by the {@link ContradictionDetector} (chosen
 * on SICK TRAIN/TRIAL, see `bench/contradiction.ts`); the store's scan keeps the reference list so
 * its verdicts match AI-Houkai's.
 */
export const EXTENDED_NEGATION_WORDS: readonly string[] = [
  ...NEGATION_WORDS,
  'isnt', 'arent', 'wasnt', 'werent', 'didnt', 'hasnt', 'havent', 'hadnt', 'couldnt', 'wouldnt', 'mustnt',
  'neednt', 'aint', 'cannot',
];

const REFERENCE_SET: ReadonlySet<string> = new Set(NEGATION_WORDS);

/**
 * Apostrophe look-alikes folded to `'` before tokenising, so "don‘t", "donʼt" and "don＇t" count
 * like "don't" and "don’t" (the tokeniser itself only deletes `'` and `’`, as the reference does).
 */
const APOSTROPHES = /[\u2018\u02bc\uff07\u00b4\u2032]/gu;

/** The tokens of `text` as the negation rules see them (AI-Houkai's `_tokenize`, apostrophe variants folded). */
export function negationTokens(text: string): string[] {
  return tokenize(text.replace(APOSTROPHES, "'"));
}

/** Number of negation tokens in `text` (reference `_count_neg`; default word list {@link NEGATION_WORDS}). */
export function negationCount(text: string, words: Iterable<string> = NEGATION_WORDS): number {
  const set = words === NEGATION_WORDS ? REFERENCE_SET : new Set(words);
  let n = 0;
  for (const t of negationTokens(text)) if (set.has(t)) n++;
  return n;
}

/**
 * Reference `_negation_diff`: true when the negation counts differ in **parity**. "Don't … not …"
 * holds two negations and so does not contradict "Always …" (trap 7).
 */
export function negationDiff(a: string, b: string, words: Iterable<string> = NEGATION_WORDS): boolean {
  return negationCount(a, words) % 2 !== negationCount(b, words) % 2;
}


/** |A ∩ B| / min(|A|, |B|); 0 when either is empty. */
export function overlapCoefficient(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (small.size === 0) return 0;
  let inter = 0;
  for (const t of small) if (large.has(t)) inter++;
  return inter / small.size;
}
