/**
 * Proactive suggestions: memories relevant to what the agent is doing right now (a file, an error,
 * a bit of conversation) without an explicit search (patterns in `surfacesWhen`, and the nearest memories by meaning).
 *
 * A memory is suggested only when at least one holds (property 7):
 *
 * - **pattern match**: one of its `surfacesWhen` patterns matches the context. A pattern is a
 *   *glob* when prefixed `glob:` or when it contains any of `* ? [ ] { } /` or a backslash; it is
 *   matched, case-insensitively, against `filePath` (backslashes read as `/`). A glob without a `/`
 *   matches the file's base name (like `.gitignore`: `*.ts` matches `src/a/b.ts`); one with a `/`
 *   must match a whole trailing run of path segments (`src/**` matches `/home/u/p/src/x.ts`), or the
 *   whole path when it starts with `/`. `**` spans directories, `*` and `?` stay within one, `[…]`
 *   is a character class (`[!…]` negated) and `{a,b}` an alternation. Any other pattern (or one
 *   prefixed `keyword:`) is a *keyword*: it matches when its lower-cased, whitespace-folded text
 *   occurs in the lower-cased, whitespace-folded `filePath`, `errorMessage` or
 *   `conversationSnippet` with no letter, digit or `_` glued to either end (so `deploy` does not
 *   fire on "deployment"; edges that are CJK characters need no boundary).
 * - **concept overlap > `minOverlap`** (default 0.3): concepts are the `rawLexicalTerms` (word
 *   tokens plus identifiers) of a text, minus the stop words and minus tokens of ≤ 2 characters
 *   (CJK bigrams are kept); a memory's concepts also include its tags. With C the context's
 *   concepts and M the memory's,
 *
 *       overlap = |C ∩ M| / min(|C|, |M|)          (the overlap coefficient)
 *
 *   and at least `minSharedConcepts` (default 2) concepts must be shared. The overlap coefficient
 *   rather than Jaccard because a one-line error message and a paragraph-long memory differ in
 *   size by an order of magnitude, and Jaccard would then never pass 0.3 however on-topic the
 *   pair is; the shared-concepts floor stops a single common word from carrying a tiny set.
 *
 * Suggestions are ranked by `score = (1 if any pattern matched else 0) + overlap` (the raw overlap,
 * so among pattern matches the more on-topic memory leads; a pattern match therefore never ranks
 * below a concept-only one), then pattern matches first on an exact tie, then higher importance,
 * then newer, and cut to `limit` (property 8). An empty context (every field absent or
 * blank) yields `[]`. The caller supplies the candidate memories (typically the live ones); this
 * module does no filtering by supersession, expiry or trust.
 */
import { invalid } from '../errors.ts';
import { STOP_WORDS } from './recall-pack.ts';
import { checkNumberInRange } from './validate.ts';
import { foldWhitespaceLower, pyStrip } from './text.ts';
import { globMatches } from './glob.ts';
import { hasCjk, rawLexicalTerms } from './tokenize.ts';
import type { Memory } from '../types.ts';
import { checkInteger, checkKnownKeys, checkObject } from './validate.ts';

export interface SuggestContext {
  filePath?: string | null;
  errorMessage?: string | null;
  conversationSnippet?: string | null;
}

export interface SuggestOptions extends SuggestContext {
  /** Most suggestions returned, default 3 (a whole number ≥ 0). */
  limit?: number;
  /** Concept overlap must exceed this, default 0.3, in [0, 1]. */
  minOverlap?: number;
  /** Fewest shared concepts for an overlap match, default 2 (≥ 1). */
  minSharedConcepts?: number;
}

export interface SuggestCandidate {
  memory: Memory;
  /** Globs or keywords that should surface this memory (see the module comment). */
  surfacesWhen?: readonly string[];
}

export type ContextField = 'filePath' | 'errorMessage' | 'conversationSnippet';

export interface PatternMatch {
  pattern: string;
  kind: 'glob' | 'keyword';
  field: ContextField;
}

export interface Suggestion {
  memory: Memory;
  /** `(pattern matched ? 1 : 0) + overlap`, in [0, 2]; concept-only suggestions have overlap > `minOverlap`. */
  score: number;
  matchedPatterns: PatternMatch[];
  /** Shared concepts, in the memory's order. */
  sharedConcepts: string[];
  overlap: number;
  /** One line saying why this surfaced. */
  reason: string;
}

const OPTION_KEYS: ReadonlySet<string> = new Set(['filePath', 'errorMessage', 'conversationSnippet', 'limit', 'minOverlap', 'minSharedConcepts']);
const CONTEXT_FIELDS: readonly ContextField[] = ['filePath', 'errorMessage', 'conversationSnippet'];

// ---------------------------------------------------------------------------------------------
// Concepts
// ---------------------------------------------------------------------------------------------

/** The concept set of a text: lexical terms without stop words or ≤ 2-character tokens (CJK bigrams kept). */
export function conceptTerms(text: string): Set<string> {
  const out = new Set<string>();
  for (const term of rawLexicalTerms(text)) {
    if (STOP_WORDS.has(term)) continue;
    if (term.length > 2 || (term.length === 2 && hasCjk(term))) out.add(term);
  }
  return out;
}

/** |A ∩ B| / min(|A|, |B|) and the shared terms (in B's order); 0 when either is empty. */
export function overlapCoefficient(a: ReadonlySet<string>, b: ReadonlySet<string>): { overlap: number; shared: string[] } {
  const shared: string[] = [];
  for (const t of b) if (a.has(t)) shared.push(t);
  const denom = Math.min(a.size, b.size);
  return { overlap: denom === 0 ? 0 : shared.length / denom, shared };
}

function memoryConcepts(memory: Memory): Set<string> {
  const concepts = conceptTerms(memory.text);
  for (const tag of memory.tags) {
    const folded = foldWhitespaceLower(tag);
    if (folded.length > 2 && !STOP_WORDS.has(folded)) concepts.add(folded);
    for (const t of conceptTerms(tag)) concepts.add(t);
  }
  return concepts;
}

// ---------------------------------------------------------------------------------------------
// Patterns
// ---------------------------------------------------------------------------------------------

const GLOB_CHARS = /[*?[\]{}/\\]/;

export { globMatches } from './glob.ts';

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** Whole-word (boundary-aware) occurrence of `needle` in `haystack`, both already folded. */
function containsKeyword(haystack: string, needle: string): boolean {
  if (!needle) return false;
  const first = needle[0]!;
  const last = needle[needle.length - 1]!;
  const checkStart = WORD_CHAR.test(first) && !hasCjk(first);
  const checkEnd = WORD_CHAR.test(last) && !hasCjk(last);
  let from = 0;
  for (;;) {
    const at = haystack.indexOf(needle, from);
    if (at < 0) return false;
    const before = at > 0 ? haystack[at - 1]! : '';
    const after = haystack[at + needle.length] ?? '';
    if ((!checkStart || !before || !WORD_CHAR.test(before)) && (!checkEnd || !after || !WORD_CHAR.test(after))) return true;
    from = at + 1;
  }
}

interface ParsedPattern {
  pattern: string;
  kind: 'glob' | 'keyword';
  body: string;
}

export function parsePattern(pattern: string): ParsedPattern | null {
  const trimmed = pyStrip(pattern);
  if (!trimmed) return null;
  if (trimmed.startsWith('glob:')) {
    const body = pyStrip(trimmed.slice(5));
    return body ? { pattern, kind: 'glob', body } : null;
  }
  if (trimmed.startsWith('keyword:')) {
    const body = foldWhitespaceLower(trimmed.slice(8));
    return body ? { pattern, kind: 'keyword', body } : null;
  }
  if (GLOB_CHARS.test(trimmed)) return { pattern, kind: 'glob', body: trimmed };
  return { pattern, kind: 'keyword', body: foldWhitespaceLower(trimmed) };
}

/** The context fields as keywords are matched against (lower-cased, whitespace folded). */
function foldContext(context: SuggestContext): Partial<Record<ContextField, string>> {
  const folded: Partial<Record<ContextField, string>> = {};
  for (const f of CONTEXT_FIELDS) {
    const v = context[f];
    if (typeof v === 'string' && pyStrip(v)) folded[f] = foldWhitespaceLower(v);
  }
  return folded;
}

/**
 * Every `surfacesWhen` pattern that matches the context. `folded` is `foldContext(context)`,
 * computed once per suggest call rather than once per candidate (a long context would otherwise
 * be folded again for every memory).
 */
export function matchPatterns(patterns: readonly string[], context: SuggestContext, folded = foldContext(context)): PatternMatch[] {
  const out: PatternMatch[] = [];
  for (const pattern of patterns) {
    if (typeof pattern !== 'string') continue;
    const parsed = parsePattern(pattern);
    if (!parsed) continue;
    if (parsed.kind === 'glob') {
      const path = context.filePath;
      if (typeof path === 'string' && pyStrip(path) && globMatches(parsed.body, pyStrip(path))) out.push({ pattern, kind: 'glob', field: 'filePath' });
      continue;
    }
    for (const f of CONTEXT_FIELDS) {
      const hay = folded[f];
      if (hay !== undefined && containsKeyword(hay, parsed.body)) {
        out.push({ pattern, kind: 'keyword', field: f });
        break;
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Suggest
// ---------------------------------------------------------------------------------------------

function checkContextField(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(`${field} must be a string`, { field });
  return value;
}

/**
 * Memories that the context should surface, best first, at most `limit` (see the module comment).
 * Invalid options throw INVALID_ARGUMENT naming the field.
 */
export function suggestMemories(candidates: readonly SuggestCandidate[], options: SuggestOptions): Suggestion[] {
  if (!Array.isArray(candidates)) throw invalid('candidates must be an array', { field: 'candidates' });
  const raw = checkObject<SuggestOptions>(options, 'options') as Record<string, unknown>;
  checkKnownKeys(raw, OPTION_KEYS, 'options');
  const context: SuggestContext = {
    filePath: checkContextField(raw.filePath, 'filePath'),
    errorMessage: checkContextField(raw.errorMessage, 'errorMessage'),
    conversationSnippet: checkContextField(raw.conversationSnippet, 'conversationSnippet'),
  };
  const limit = raw.limit === undefined ? 3 : checkInteger(raw.limit, 'limit', 0);
  const minOverlap = raw.minOverlap === undefined ? 0.3 : checkNumberInRange(raw.minOverlap, 'minOverlap', 0, 1);
  const minShared = raw.minSharedConcepts === undefined ? 2 : checkInteger(raw.minSharedConcepts, 'minSharedConcepts', 1);

  const texts = CONTEXT_FIELDS.map((f) => context[f]).filter((v): v is string => typeof v === 'string' && pyStrip(v).length > 0);
  if (texts.length === 0 || limit === 0) return [];
  const contextConcepts = conceptTerms(texts.join('\n'));

  const folded = foldContext(context);
  const out: (Suggestion & { index: number })[] = [];
  candidates.forEach((candidate, index) => {
    const { memory } = candidate;
    const matchedPatterns = matchPatterns(candidate.surfacesWhen ?? [], context, folded);
    const { overlap, shared } = overlapCoefficient(contextConcepts, memoryConcepts(memory));
    const conceptMatch = shared.length >= minShared && overlap > minOverlap;
    if (matchedPatterns.length === 0 && !conceptMatch) return;
    const reasons: string[] = [];
    if (matchedPatterns.length) reasons.push(`matches ${matchedPatterns.map((m) => `${m.kind} "${m.pattern}" (${m.field})`).join(', ')}`);
    if (conceptMatch) reasons.push(`shares concepts ${shared.slice(0, 5).join(', ')} (overlap ${overlap.toFixed(2)})`);
    out.push({
      memory,
      score: (matchedPatterns.length ? 1 : 0) + overlap,
      matchedPatterns,
      sharedConcepts: shared,
      overlap,
      reason: reasons.join('; '),
      index,
    });
  });
  out.sort(
    (a, b) =>
      b.score - a.score ||
      Number(b.matchedPatterns.length > 0) - Number(a.matchedPatterns.length > 0) ||
      b.memory.importance - a.memory.importance ||
      b.memory.createdAt - a.memory.createdAt ||
      a.index - b.index,
  );
  return out.slice(0, limit).map(({ index: _index, ...s }) => s);
}
