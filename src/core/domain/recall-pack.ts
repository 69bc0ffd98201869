/**
 * The recall_pack packer: fits ranked memories into a token budget and renders a
 * ready-to-inject context block, plus the key-phrase fan-out used by auto-context packing.
 *
 * - Each memory renders as `- ({type}){marks} {text}`, where marks is ` [pinned]`, ` [reported]`,
 *   ` [untrusted]` or a combination like ` [pinned, untrusted]`; trusted rows carry no mark. The
 *   text is folded onto its line and its brackets escaped (`pack-text.ts`): no memory can start
 *   a line or forge a mark, and an unknown trust level is marked `untrusted`.
 * - A line costs `max(1, round(len/4))` tokens, with Python's round (half to even: a 10-character
 *   line costs 2, 14 → 4, 18 → 4) and len in code points; or whatever `tokenCounter` says.
 * - Packing is greedy in rank order; an item that does not fit is *skipped, not a stop*
 *   (`truncated` becomes true) so a later, smaller one can still fit.
 * - With `compress`, the skipped items are clustered greedily: each unclustered item seeds a
 *   cluster and absorbs every later unclustered item whose token Jaccard with the seed is ≥
 *   `compressThreshold`; clusters of ≥ `compressMinGroup` become one line
 *   `- (compressed){marks} [×N similar] s1 | s2 | s3` (first sentence, split on `.`, of up to the
 *   three most important members; marks of the least trusted member, pinned if any is), packed
 *   if it fits what is left.
 * - `text` is `header + "\n" + lines` (just the lines when the header is empty) and `""` when
 *   nothing fit. The header is not counted; `usedTokens` is the sum of item and group costs.
 */
import { invalid } from '../errors.ts';
import { checkNumberInRange } from './validate.ts';
import { foldWhitespaceLower, pyStrip } from './text.ts';
import { jaccard, tokenize } from './tokenize.ts';
import { packMarks, packText } from './pack-text.ts';
import { effectiveTrust, lowerTrust } from './trust.ts';
import type { Memory, Trust } from '../types.ts';
import { checkBoolean, checkInteger, checkKnownKeys, checkObject } from './validate.ts';

export const DEFAULT_PACK_HEADER = '## Relevant memory';

/** Python's `round()` for a float: nearest integer, exact halves to the even neighbour. */
export function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** Length in code points (Python's `len`), not UTF-16 units. */
export function codePointLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Tokenizer-free estimate: `max(1, round_half_even(len/4))`. */
export function estimateTokens(text: string): number {
  return Math.max(1, roundHalfEven(codePointLength(text) / 4));
}

/**
 * One rendered pack line: `- ({type}){marks} {text}`. The text is folded onto the line and its
 * brackets escaped (see `pack-text.ts`), so it can neither start a line nor forge a mark; an
 * unknown trust level is marked `untrusted`.
 */
export function packLine(memory: Memory): string {
  return `- (${memory.type})${packMarks(memory.pinned === true, effectiveTrust(memory.trust))} ${packText(memory.text)}`;
}

/** A compressed group's line carries the least trusted member's mark, and `pinned` when any member is pinned. */
export function compressedLine(memories: readonly Memory[]): string {
  const marks = packMarks(memories.some((m) => m.pinned === true), lowerTrustOf(memories));
  return `- (compressed)${marks} ${compressGroupSummary(memories)}`;
}

function lowerTrustOf(memories: readonly Memory[]): Trust {
  return memories.reduce<Trust>((worst, m) => lowerTrust(worst, m.trust), 'trusted');
}

export interface RankedMemory {
  memory: Memory;
  score: number;
}

export interface PackedMemory {
  memory: Memory;
  score: number;
  tokens: number;
}

export interface CompressedGroup {
  memories: Memory[];
  /** The full line: `- (compressed) [×N similar] …`. */
  text: string;
  tokens: number;
}

export interface PackResult {
  text: string;
  items: PackedMemory[];
  usedTokens: number;
  budget: number;
  /** True when at least one ranked candidate was left out to fit the budget. */
  truncated: boolean;
  compressedGroups: CompressedGroup[];
}

export interface PackOptions {
  /** Default 800; 0 packs nothing. */
  tokenBudget?: number;
  /** Only the first `maxItems` ranked memories are considered, default 50. */
  maxItems?: number;
  /** Replaces `estimateTokens`; must return a finite number ≥ 0. */
  tokenCounter?: (text: string) => number;
  /** Default `## Relevant memory`; `''` for none. */
  header?: string;
  compress?: boolean;
  /** Token-Jaccard threshold in [0, 1], default 0.30. */
  compressThreshold?: number;
  /** Smallest cluster worth a line, default 2. */
  compressMinGroup?: number;
}

const PACK_KEYS: ReadonlySet<string> = new Set(['tokenBudget', 'maxItems', 'tokenCounter', 'header', 'compress', 'compressThreshold', 'compressMinGroup']);

interface CheckedPackOptions {
  tokenBudget: number;
  maxItems: number;
  tokenCounter: (text: string) => number;
  header: string;
  compress: boolean;
  compressThreshold: number;
  compressMinGroup: number;
}

export function checkPackOptions(value: unknown, field = 'options'): CheckedPackOptions {
  const raw = checkObject<PackOptions>(value, field) as Record<string, unknown>;
  checkKnownKeys(raw, PACK_KEYS, field);
  if (raw.tokenCounter !== undefined && typeof raw.tokenCounter !== 'function') {
    throw invalid('tokenCounter must be a function (text) => number', { field: 'tokenCounter' });
  }
  if (raw.header !== undefined && typeof raw.header !== 'string') throw invalid('header must be a string', { field: 'header' });
  return {
    tokenBudget: raw.tokenBudget === undefined ? 800 : checkInteger(raw.tokenBudget, 'tokenBudget', 0),
    maxItems: raw.maxItems === undefined ? 50 : checkInteger(raw.maxItems, 'maxItems', 1),
    tokenCounter: (raw.tokenCounter as ((text: string) => number) | undefined) ?? estimateTokens,
    header: (raw.header as string | undefined) ?? DEFAULT_PACK_HEADER,
    compress: raw.compress === undefined ? false : checkBoolean(raw.compress, 'compress'),
    compressThreshold: raw.compressThreshold === undefined ? 0.3 : checkNumberInRange(raw.compressThreshold, 'compressThreshold', 0, 1),
    compressMinGroup: raw.compressMinGroup === undefined ? 2 : checkInteger(raw.compressMinGroup, 'compressMinGroup', 1),
  };
}

function countWith(counter: (text: string) => number, text: string): number {
  const n = counter(text);
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) {
    throw invalid(`tokenCounter must return a finite number ≥ 0 — got ${JSON.stringify(n)}`, { field: 'tokenCounter' });
  }
  return n;
}

/** Greedy single-pass clustering by token Jaccard to each cluster's seed; keeps clusters of ≥ `minSize`. */
export function clusterByJaccard(candidates: readonly RankedMemory[], threshold: number, minSize: number): Memory[][] {
  const used = new Array<boolean>(candidates.length).fill(false);
  const clusters: Memory[][] = [];
  for (let i = 0; i < candidates.length; i++) {
    if (used[i]) continue;
    const seed = candidates[i]!.memory;
    const cluster = [seed];
    used[i] = true;
    for (let j = i + 1; j < candidates.length; j++) {
      if (used[j]) continue;
      if (jaccard(seed.text, candidates[j]!.memory.text) >= threshold) {
        cluster.push(candidates[j]!.memory);
        used[j] = true;
      }
    }
    if (cluster.length >= minSize) clusters.push(cluster);
  }
  return clusters;
}

/** `[×N similar] s1 | s2 | s3`: first sentences of the (up to) three most important members. */
export function compressGroupSummary(memories: readonly Memory[]): string {
  // Array.prototype.sort is stable, so equal importance keeps rank order (as Python's sorted does).
  const ordered = [...memories].sort((a, b) => b.importance - a.importance);
  const snippets: string[] = [];
  for (const m of ordered.slice(0, 3)) {
    const snippet = pyStrip(packText(m.text).split('.')[0]!);
    if (snippet) snippets.push(snippet);
  }
  return `[×${memories.length} similar] ${snippets.join(' | ')}`;
}

/** Packs already-ranked memories into the token budget (see the module comment). */
export function packMemories(ranked: readonly RankedMemory[], options: PackOptions = {}): PackResult {
  if (!Array.isArray(ranked)) throw invalid('ranked must be an array', { field: 'ranked' });
  const opts = checkPackOptions(options);
  const items: PackedMemory[] = [];
  const dropped: RankedMemory[] = [];
  let used = 0;
  let truncated = false;
  for (const { memory, score } of ranked.slice(0, opts.maxItems)) {
    const cost = countWith(opts.tokenCounter, packLine(memory));
    if (used + cost > opts.tokenBudget) {
      truncated = true;
      dropped.push({ memory, score });
      continue; // a smaller, lower-ranked item may still fit
    }
    items.push({ memory, score, tokens: cost });
    used += cost;
  }

  const compressedGroups: CompressedGroup[] = [];
  if (opts.compress && dropped.length > 0) {
    for (const group of clusterByJaccard(dropped, opts.compressThreshold, opts.compressMinGroup)) {
      const line = compressedLine(group);
      const cost = countWith(opts.tokenCounter, line);
      if (used + cost <= opts.tokenBudget) {
        compressedGroups.push({ memories: group, text: line, tokens: cost });
        used += cost;
      }
    }
  }

  let text = '';
  if (items.length > 0 || compressedGroups.length > 0) {
    const body = [...items.map((p) => packLine(p.memory)), ...compressedGroups.map((g) => g.text)].join('\n');
    text = opts.header ? `${opts.header}\n${body}` : body;
  }
  return { text, items, usedTokens: used, budget: opts.tokenBudget, truncated, compressedGroups };
}

// ---------------------------------------------------------------------------------------------
// Key phrases and fan-out
// ---------------------------------------------------------------------------------------------

/**
 * AI-Houkai's `_STOP_WORDS` (73 words; the reference notes call it "a 60-word list", the source
 * has these), used by key-phrase extraction and concept overlap.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'is', 'are', 'was', 'were', 'be', 'been', 'being',
  'have', 'has', 'had', 'do', 'does', 'did', 'will', 'would', 'could',
  'should', 'may', 'might', 'shall', 'can', 'need', 'must',
  'to', 'for', 'of', 'in', 'on', 'at', 'by', 'from', 'with', 'about',
  'and', 'or', 'but', 'if', 'then', 'so', 'as', 'that', 'this', 'these',
  'those', 'it', 'its', 'i', 'my', 'we', 'our', 'you', 'your', 'they',
  'their', 'what', 'how', 'when', 'where', 'who', 'which', 'why', 'not',
  'just', 'now', 'also', 'than', 'only', 'any', 'all', 'each',
]);

/**
 * Up to `maxPhrases` key phrases of `task`: tokenise, drop stop words and tokens of ≤ 2
 * characters, then the bigrams of consecutive remaining words followed by the words themselves,
 * de-duplicated in that order. `maxPhrases` must be a whole number ≥ 0.
 */
export function extractKeyPhrases(task: string, maxPhrases = 3): string[] {
  if (typeof task !== 'string') throw invalid('task must be a string', { field: 'task' });
  const max = checkInteger(maxPhrases, 'maxPhrases', 0);
  const words = tokenize(task).filter((w) => !STOP_WORDS.has(w) && w.length > 2);
  // Collected up to `max` (no spread of the words into a call: a 1 MiB task is 200,000 of them).
  const phrases = new Set<string>();
  for (let i = 0; i + 1 < words.length && phrases.size < max; i++) phrases.add(`${words[i]} ${words[i + 1]}`);
  for (let i = 0; i < words.length && phrases.size < max; i++) phrases.add(words[i]!);
  return [...phrases];
}

/**
 * The queries an auto-context pack searches: the task itself (always, even blank), then its key
 * phrases, dropping any that equal an earlier query case- and whitespace-insensitively (the first
 * spelling wins).
 */
export function fanoutQueries(task: string, maxPhrases = 3): string[] {
  const phrases = extractKeyPhrases(task, maxPhrases);
  const out = [task];
  const seen = new Set([foldWhitespaceLower(task)]);
  for (const phrase of phrases) {
    const key = foldWhitespaceLower(phrase);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(phrase);
  }
  return out;
}
