/**
 * Tokenisers for lexical matching (BM25, Jaccard, key phrases, concept overlap).
 *
 * `tokenize` is AI-Houkai's `_tokenize` exactly, so Jaccard, key phrases and the negation rules
 * agree with the Python store:
 *   1. lower-case;
 *   2. delete `'` and `’` ("don't" → "dont");
 *   3. take every run of `[\p{L}\p{N}_]` (Python's Unicode `\w`: letters, digits of any kind,
 *      underscore; combining marks are *not* word characters in either language);
 *   4. if the text contains any CJK/kana/Hangul character, then for every token holding ≥ 2 such
 *      characters, append the bigrams of those characters (taken in order, skipping any non-CJK
 *      characters of the token, as the Python code does). Scripts written without spaces collapse
 *      into one long token, so the bigrams are what lets a CJK query match a CJK document.
 *
 * `lexicalTerms` gives the terms BM25 scores and the UI highlights (the store persists them in
 * its inverted index). Starting from the same normalisation:
 *   - numbers stay whole: versions and dotted numbers (`v1.2.3` → `v1.2.3`, `1.2.3`; `99.9`,
 *     `192.168.0.1`), times (`9:30`) and thousands (`5,000` → `5000`) are one term each, and
 *     their digit fragments (`1`, `2`, `30`, `000`) are not terms;
 *   - stop words (`stopwords.ts`: English, German, French, Spanish function words) are dropped;
 *   - the remaining words are lightly stemmed (`stem.ts`: plurals, -ed, -ing);
 *   - CJK bigrams are kept, except those holding a particle or function character;
 *   - whole technical identifiers are added (`identifierTerms`): `PR #441` → also `#441` and
 *     `pr#441`; `MemoryStore.recall` → also `memorystore.recall` and the parts `memori`, `store`;
 *     `snake_case` → also `snake`, `case`; `src/core/store.ts` → also `src/core/store.ts` and
 *     `store.ts`; `fast-check` → also `fast-check`.
 * `rawLexicalTerms` is the previous definition (`tokenize` plus `identifierTerms`, nothing
 * dropped or stemmed), kept for concept overlap and for comparisons.
 */
import { stem } from './stem.ts';
import { CJK_FUNCTION_CHARACTERS, STOP_WORDS } from './stopwords.ts';

/** Python's `\w+` over Unicode text. */
const WORD = /[\p{L}\p{N}_]+/gu;

/** The CJK/kana/Hangul ranges of the reference: U+3040–30FF, U+3400–4DBF, U+4E00–9FFF, U+F900–FAFF, U+AC00–D7A3. */
const CJK_CLASS = '\\u3040-\\u30FF\\u3400-\\u4DBF\\u4E00-\\u9FFF\\uF900-\\uFAFF\\uAC00-\\uD7A3';
const HAS_CJK = new RegExp(`[${CJK_CLASS}]`, 'u');
const CJK_CHAR = new RegExp(`^[${CJK_CLASS}]$`, 'u');

/** True when `text` holds at least one CJK/kana/Hangul character. */
export function hasCjk(text: string): boolean {
  return HAS_CJK.test(text);
}

/** AI-Houkai's tokeniser (see the module comment). Tokens keep their order; repeats are kept (they are term frequencies). */
export function tokenize(text: string): string[] {
  const normalized = text.toLowerCase().replace(/['\u2019]/g, '');
  const tokens: string[] = normalized.match(WORD) ?? [];
  if (!HAS_CJK.test(normalized)) return tokens;
  const extra: string[] = [];
  for (const token of tokens) {
    // All the reference ranges are in the BMP, so UTF-16 units are characters here.
    const chars: string[] = [];
    for (const ch of token) if (CJK_CHAR.test(ch)) chars.push(ch);
    // A single CJK character is already its own token; re-emitting it would double its tf.
    if (chars.length >= 2) for (let i = 0; i + 1 < chars.length; i++) extra.push(chars[i]! + chars[i + 1]!);
  }
  return tokens.concat(extra);
}

// ---------------------------------------------------------------------------------------------
// Identifier terms
// ---------------------------------------------------------------------------------------------

/*
 * Identifier patterns run on *chunks*: maximal runs of characters that can belong to an
 * identifier (letters, digits and `_ . ~ @ + - / \\ $ :`, CJK excluded: CJK is covered by the
 * bigrams). Chunks longer than MAX_CHUNK are skipped (no identifier is that long, and a megabyte
 * without a space must not cost quadratic backtracking), each pattern runs only on chunks holding
 * its trigger character, and every quantifier is bounded. `#123` references, which span a space
 * (`PR #441`), are found separately by scanning for `#`.
 */
const MAX_CHUNK = 512;
const MAX_IDENTIFIER = 100;
const NON_IDENTIFIER = new RegExp(`[^\\p{L}\\p{N}_.~@+\\-/\\\\$:]|[${CJK_CLASS}]`, 'gu');

/** Characters of one path segment. */
const SEG = '[\\p{L}\\p{N}_.~@+-]';
/** `src/core/store.ts`, `./a/b`, `/etc/hosts`, `C:\\x\\y.txt` (backslashes count as separators). */
const PATH = new RegExp(`${SEG}{0,200}(?:[/\\\\]${SEG}{1,200}){1,64}`, 'gu');
/** `MemoryStore.recall`, `store.ts`, `std::io::Read`: segments start with a letter, `_` or `$`. */
const DOTTED = /[\p{L}_$][\p{L}\p{N}_$]{0,100}(?:(?:\.|::)[\p{L}_$][\p{L}\p{N}_$]{0,100}){1,20}/gu;
/** `v1.2.3`, `1.2.3-beta.1`, `2.0`: not glued to a preceding word character or dot. */
const VERSION = /(?<![\p{L}\p{N}_.])v?\p{Nd}{1,20}(?:\.\p{Nd}{1,20}){1,10}(?:-[\p{L}\p{N}]{1,40}(?:\.[\p{L}\p{N}]{1,40}){0,10})?/gu;
/** `fast-check`, `houkai-web`, `gh-123`. */
const HYPHENATED = /[\p{L}\p{N}_]{1,100}(?:-[\p{L}\p{N}_]{1,100}){1,20}/gu;
/** The `#441` of a reference; the word before it (`PR`, `issue`) is found by scanning back. */
const REF_NUMBER = /#(\p{Nd}{1,20})(?![\p{L}\p{N}_])/gu;
const REF_WORD_CHAR = /[\p{L}\p{N}_-]/u;
/** Raw identifiers (before lower-casing) whose case or underscores carry word boundaries. */
const IDENT = /[\p{L}\p{N}_]+/gu;

/** Sub-words of `MemoryStore`, `HTTPServer`, `snake_case`, `parseURL2`: two or more parts of ≥ 2 characters, or none. */
function identifierParts(raw: string): string[] {
  if (raw.length > MAX_IDENTIFIER) return [];
  const hasCase = /\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u.test(raw);
  if (!hasCase && !raw.includes('_')) return [];
  const parts: string[] = [];
  for (const chunk of raw.split('_')) {
    if (!chunk) continue;
    // Split before an upper-case letter that follows a lower-case letter or digit, and before the
    // last capital of an acronym run that is followed by a lower-case letter (HTTPServer → HTTP, Server).
    const pieces = chunk
      .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1\u0000$2')
      .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1\u0000$2')
      .split('\u0000');
    for (const piece of pieces) if (piece.length >= 2) parts.push(piece.toLowerCase());
  }
  return parts.length >= 2 ? parts : [];
}

/**
 * Trims sentence punctuation that a greedy identifier pattern may have swallowed at the end (a
 * loop: the end-anchored regex `[.~+-]+$` would be retried from every dot of a term).
 */
function trimTrailing(term: string): string {
  let end = term.length;
  while (end > 0 && '.~+-'.includes(term[end - 1]!)) end--;
  return end === term.length ? term : term.slice(0, end);
}

function chunkTerms(chunk: string, out: string[], numbers: boolean): void {
  if (chunk.includes('/') || chunk.includes('\\')) {
    for (const match of chunk.matchAll(PATH)) {
      let term = trimTrailing(match[0].replace(/\\/g, '/'));
      term = term.replace(/^(?:\.\/|\/)+/u, '');
      if (term.includes('/') && /[\p{L}\p{N}]/u.test(term)) out.push(term);
    }
  }
  if (chunk.includes('.') || chunk.includes('::')) {
    for (const match of chunk.matchAll(DOTTED)) out.push(match[0]);
    if (numbers) for (const match of chunk.matchAll(VERSION)) {
      const term = trimTrailing(match[0]);
      out.push(term);
      if (term.startsWith('v')) out.push(term.slice(1));
    }
  }
  if (chunk.includes('-')) for (const match of chunk.matchAll(HYPHENATED)) out.push(match[0]);
}

/** `#441` and, when a word precedes it (up to 4 spaces/tabs before the `#`), `pr#441`. */
function refTerms(lower: string, out: string[]): void {
  if (!lower.includes('#')) return;
  for (const match of lower.matchAll(REF_NUMBER)) {
    const number = match[1]!;
    out.push(`#${number}`);
    let end = match.index;
    for (let gaps = 0; gaps < 4 && end > 0 && (lower[end - 1] === ' ' || lower[end - 1] === '\t'); gaps++) end--;
    let start = end;
    while (start > 0 && end - start < 64 && REF_WORD_CHAR.test(lower[start - 1]!)) start--;
    // The word must start with a letter (`1abc #5` → `abc`).
    const word = lower.slice(start, end).replace(/^[^\p{L}]+/u, '');
    if (word) out.push(`${word}#${number}`);
  }
}

/**
 * The identifier terms of `text` alone (no word tokens): paths, dotted and `::` names, versions,
 * hyphenated names, `#123` references and the parts of camel/snake-case identifiers. Lower-cased.
 */
export function identifierTerms(text: string, options: { numbers?: boolean } = {}): string[] {
  const out: string[] = [];
  const lower = text.toLowerCase();
  const numbers = options.numbers ?? true;
  for (const chunk of lower.replace(NON_IDENTIFIER, ' ').split(' ')) {
    if (chunk.length > 2 && chunk.length <= MAX_CHUNK) chunkTerms(chunk, out, numbers);
  }
  refTerms(lower, out);
  for (const match of text.matchAll(IDENT)) if (match[0].length > 3) out.push(...identifierParts(match[0]));
  return out;
}

/**
 * The previous lexical terms: `tokenize(text)` followed by `identifierTerms(text)`, repeats kept,
 * nothing dropped or stemmed.
 */
export function rawLexicalTerms(text: string): string[] {
  const tokens = tokenize(text);
  const extra = identifierTerms(text);
  return extra.length ? tokens.concat(extra) : tokens;
}

/** `5,000`, `1,234,567.5`: comma thousands (the term drops the commas). */
const THOUSANDS = /(?<![\p{L}\p{N}_.,])\p{Nd}{1,3}(?:,\p{Nd}{3}){1,6}(?:\.\p{Nd}{1,20})?(?![\p{N}_]|[.,]\p{Nd})/gu;
/** `v1.2.3`, `1.2.3-beta.1`, `99.9`, `192.168.0.1`, `9:30`, `02:00:15`: not glued to a word or another number. */
const DOTTED_NUMBER = /(?<![\p{L}\p{N}_.:])v?\p{Nd}{1,20}(?:[.:]\p{Nd}{1,20}){1,10}(?:-[\p{L}\p{N}]{1,40}(?:\.[\p{L}\p{N}]{1,40}){0,10})?(?![\p{N}_]|[.:]\p{Nd})/gu;

/** The whole-number terms of `lower` and the text with those numbers blanked out. */
function wholeNumbers(lower: string): { terms: string[]; rest: string } {
  if (!/\p{Nd}[.,:]\p{Nd}/u.test(lower)) return { terms: [], rest: lower };
  const terms: string[] = [];
  const blank = (m: string): string => ' '.repeat(m.length);
  let rest = lower.replace(THOUSANDS, (m) => {
    terms.push(m.replace(/,/g, ''));
    return blank(m);
  });
  rest = rest.replace(DOTTED_NUMBER, (m) => {
    const term = trimTrailing(m);
    terms.push(term);
    if (term.startsWith('v')) terms.push(term.slice(1));
    return blank(m);
  });
  return { terms, rest };
}

/** The term of one word token: null for a stop word, else its light stem. */
export function wordTerm(token: string): string | null {
  return STOP_WORDS.has(token) ? null : stem(token);
}

/**
 * The definition of {@link lexicalTerms} a store's stored terms follow (`StoreMeta.lexicalVersion`;
 * absent: 1). A store written under an earlier one has its terms derived again at open
 * (core/storage/lexical-rederive.ts), for the rows {@link lexicalTermsChanged} names.
 * - 1: issue #14 (stop words, light stems, whole numbers);
 * - 2: a possessive's `'s` is dropped before the apostrophes (issue #51 item 2): "Melanie's" is
 *   `melanie`, as "Melanie" is, where it was `melani` (the stem of "melanies").
 */
export const LEXICAL_TERMS_VERSION = 2;

/** A possessive `'s` (or `’s`) closing a word. */
const POSSESSIVE_S = /(?<=[\p{L}\p{N}])['\u2019]s(?![\p{L}\p{N}_])/gu;

/** True when the terms of `text` under version `from` can differ from today's (the rows an upgrade rewrites). */
export function lexicalTermsChanged(text: string, from: number): boolean {
  if (from >= LEXICAL_TERMS_VERSION) return false;
  POSSESSIVE_S.lastIndex = 0;
  return POSSESSIVE_S.test(text.toLowerCase());
}

/**
 * Terms for lexical scoring and highlighting (see the module comment). Repeats are kept, since
 * BM25 counts term frequency. A possessive's `'s` goes first ("Melanie's" → `melanie`), then
 * every other apostrophe ("don't" → `dont`).
 */
export function lexicalTerms(text: string): string[] {
  const lower = text.toLowerCase().replace(POSSESSIVE_S, '').replace(/['\u2019]/g, '');
  const { terms: numbers, rest } = wholeNumbers(lower);
  const out: string[] = [];
  const words: string[] = rest.match(WORD) ?? [];
  for (const token of words) {
    const term = wordTerm(token);
    if (term !== null) out.push(term);
  }
  if (HAS_CJK.test(rest)) {
    for (const token of words) {
      const chars: string[] = [];
      for (const ch of token) if (CJK_CHAR.test(ch)) chars.push(ch);
      for (let i = 0; i + 1 < chars.length; i++) {
        if (!CJK_FUNCTION_CHARACTERS.has(chars[i]!) && !CJK_FUNCTION_CHARACTERS.has(chars[i + 1]!)) out.push(chars[i]! + chars[i + 1]!);
      }
    }
  }
  for (const n of numbers) out.push(n);
  for (const term of identifierTerms(text, { numbers: false })) {
    // Identifier parts are words: stop words dropped, stemmed like any other word.
    if (/^[\p{L}\p{N}_]+$/u.test(term)) {
      const t = wordTerm(term);
      if (t !== null) out.push(t);
    } else out.push(term);
  }
  return out;
}

/** |A ∩ B| / |A ∪ B| over two term sets; 0 when both are empty. */
export function setJaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let inter = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const t of small) if (large.has(t)) inter++;
  const union = a.size + b.size - inter;
  return union === 0 ? 0 : inter / union;
}

/** AI-Houkai's `_jaccard_sim`: Jaccard similarity of the `tokenize` sets of two texts. */
export function jaccard(a: string, b: string): number {
  return setJaccard(new Set(tokenize(a)), new Set(tokenize(b)));
}
