/**
 * Contradictions beyond explicit negation, for the write-time conflict scan: pure, no model.
 *
 * Two statements about the same thing (an older and a newer one) are compared as sequences of
 * content words (`contentTokens`: stop words out, light stems, numbers whole, negations and
 * change/contrast markers noted aside). The patterns, in this order:
 *
 * 1. **negation**: the negation parity differs (the reference rule, with the n't contractions and
 *    "rather than"/"instead of" counted as negations) *and* the two say nearly the same thing
 *    apart from it (overlap coefficient of their content words ≥ 0.85): "Deploying on Fridays is
 *    allowed" / "… is not allowed". The content gate keeps paraphrases such as "Use pnpm, not npm"
 *    / "We use pnpm rather than npm" apart (both negate once).
 * 2. **swapped alternatives**: the same content words with two of them exchanged — where the
 *    sentences contrast alternatives ("Use npm, not pnpm" / "Use pnpm, not npm"; "tabs over
 *    spaces") or the two are separated by other words ("Anna reviews and Ben deploys" / "Ben
 *    reviews and Anna deploys"), but not a mere reordered list ("pnpm and yarn") nor a passive
 *    ("Ben reviews it" / "it is reviewed by Ben").
 * 3. **value mismatch**: the same frame (at least two shared content words, and at least half of
 *    the shorter statement) with exactly one differing stretch on each side, holding mutually
 *    exclusive values of one kind: numbers ("port 5432" / "5433", "two approvals" / "one"), days,
 *    months, times, antonyms and opposite states ("light" / "dark", "enabled" / "disabled",
 *    "green" / "red"), or names (capitalised words: cities, people, tools, languages). Not when
 *    the frame's verb is one that admits several values ("likes Python" / "likes TypeScript",
 *    "speaks German" / "speaks English") unless the frame says only one is meant ("prefers",
 *    "favourite", "default", "minimum", …), nor when the newer statement adds ("also", "too").
 *    With a change marker in the newer one ("now", "moved", "switched", "from now on", …) any
 *    single-stretch difference counts.
 *
 * A conflict is an **update** when the newer statement says it replaces the older one (a change
 * marker it alone carries, "no longer", "anymore") or when it restates a preference (the frame
 * holds "prefer", "favourite", "want", …): people change their minds. Otherwise a
 * **contradiction**: one of the two is wrong, and the user should say which.
 *
 * Measured on SICK (trained on nothing but the rule thresholds, chosen on SICK TRAIN) and on a
 * hand-written set of agent-memory pairs: `bench/contradiction.ts`.
 */
import { EXTENDED_NEGATION_WORDS, negationTokens, overlapCoefficient } from './negation.ts';
import { stem } from './stem.ts';
import { STOP_WORDS } from './stopwords.ts';

export type ConflictPattern = 'negation' | 'swap' | 'value';

export interface PairVerdict {
  kind: 'contradiction' | 'update';
  pattern: ConflictPattern;
  /** The differing values or swapped words, for the explanation (`older → newer`); absent for a negation. */
  detail?: string;
}

/** Content overlap required by the negation rule (chosen on SICK TRAIN, as before). */
export const NEGATION_CONTENT_GATE = 0.85;
/** Longest differing stretch (in content words) the value rule compares. */
const MAX_VALUE_RUN = 3;

const NEGATIONS: ReadonlySet<string> = new Set(EXTENDED_NEGATION_WORDS);
/** Words (as the reference tokeniser leaves them) that set alternatives against each other. */
const CONTRAST = new Set(['not', 'never', 'rather', 'instead', 'over', 'than', 'vs', 'versus', 'without', 'no']);
/** Words and phrases by which a newer statement says it replaces an older one. */
const CHANGE_WORDS = new Set([
  'now', 'moved', 'move', 'moves', 'switched', 'switch', 'changed', 'change', 'anymore', 'nowadays', 'updated',
  'became', 'become', 'replaced', 'migrated', 'renamed', 'newly', 'starting', 'henceforth',
]);
const CHANGE_PHRASES = [/\bno longer\b/, /\bany more\b/, /\bfrom now on\b/, /\bas of\b/, /\bgoing forward\b/, /\bthese days\b/, /\binstead\b(?!\s+of)/];
const ADDITIVE = new Set(['also', 'too', 'additionally', 'another', 'plus']);
const ADDITIVE_PHRASES = [/\bas well\b/, /\bin addition\b/];
/** Verbs that admit several objects at once ("likes Python" and "likes TypeScript"). */
const INCLUSIVE = new Set(['like', 'love', 'enjoi', 'speak', 'know', 'read', 'plai', 'visit', 'support', 'contain', 'include', 'own', 'has', 'have']);
/** Frame words that make a single value meant even with an inclusive verb. */
const EXCLUSIVE = new Set(['prefer', 'preferr', 'favourit', 'favorit', 'main', 'primari', 'default', 'onli', 'minimum', 'maximum', 'usual', 'best']);
/** Frame words of a preference: a changed value is an update (people change their minds). */
const PREFERENCE = new Set(['prefer', 'preferr', 'preferenc', 'favourit', 'favorit', 'want', 'wish', 'like', 'love']);

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'twenty', 'hundred', 'thousand', 'once', 'twice', 'single', 'double'];
const COLOURS = ['red', 'green', 'blue', 'yellow', 'orange', 'purple', 'black', 'white', 'gray', 'grey', 'pink', 'brown'];
/** Opposite values, written for this detector (compared by stem). */
const ANTONYM_PAIRS: readonly (readonly [string, string])[] = [
  ['light', 'dark'], ['long', 'short'], ['big', 'small'], ['large', 'small'], ['huge', 'tiny'], ['full', 'empty'], ['near', 'far'],
  ['inside', 'outside'], ['indoors', 'outdoors'], ['indoor', 'outdoor'], ['top', 'bottom'], ['open', 'closed'], ['on', 'off'],
  ['enabled', 'disabled'], ['enable', 'disable'], ['true', 'false'], ['yes', 'no'], ['allowed', 'forbidden'], ['allowed', 'prohibited'],
  ['required', 'optional'], ['mandatory', 'optional'], ['public', 'private'], ['sync', 'async'], ['synchronous', 'asynchronous'],
  ['early', 'late'], ['morning', 'evening'], ['morning', 'afternoon'], ['day', 'night'], ['increase', 'decrease'], ['add', 'remove'],
  ['adding', 'removing'], ['accept', 'reject'], ['pass', 'fail'], ['passing', 'failing'], ['success', 'failure'], ['win', 'lose'],
  ['start', 'stop'], ['first', 'last'], ['fast', 'slow'], ['high', 'low'], ['hot', 'cold'], ['new', 'old'], ['young', 'old'],
  ['wet', 'dry'], ['happy', 'sad'], ['concise', 'verbose'], ['concise', 'detailed'], ['brief', 'detailed'], ['short', 'detailed'],
  ['simple', 'complex'], ['left', 'right'], ['buy', 'sell'], ['push', 'pull'], ['enter', 'exit'], ['arrive', 'leave'],
  ['include', 'exclude'], ['internal', 'external'], ['online', 'offline'], ['local', 'remote'], ['strict', 'lenient'], ['tabs', 'spaces'],
  ['cheap', 'expensive'], ['heavy', 'light'], ['loud', 'quiet'], ['up', 'down'], ['upstairs', 'downstairs'], ['before', 'after'],
  ['min', 'max'], ['minimum', 'maximum'], ['weekly', 'daily'], ['monthly', 'weekly'], ['yearly', 'monthly'], ['hourly', 'daily'],
];
const ANTONYMS = new Map<string, Set<string>>();
for (const [a, b] of ANTONYM_PAIRS) {
  const [sa, sb] = [stem(a), stem(b)];
  if (!ANTONYMS.has(sa)) ANTONYMS.set(sa, new Set());
  if (!ANTONYMS.has(sb)) ANTONYMS.set(sb, new Set());
  ANTONYMS.get(sa)!.add(sb);
  ANTONYMS.get(sb)!.add(sa);
}
const stems = (words: readonly string[]): Set<string> => new Set(words.map(stem));
const DAY_STEMS = stems([...WEEKDAYS, ...WEEKDAYS.map((d) => `${d}s`)]);
const MONTH_STEMS = stems(MONTHS);
const NUMBER_STEMS = stems(NUMBER_WORDS);
const COLOUR_STEMS = stems(COLOURS);

/** One statement, as the rules see it. */
export interface StatementView {
  /** Content words in order: stemmed, stop words, negations and markers left out; numbers whole. */
  seq: string[];
  /** Positions in `seq` of words written as names (capitalised, or mixed/upper case). */
  named: Set<number>;
  /** Negations (reference list, n't forms, "rather than", "instead of"). */
  negations: number;
  /** Has an agent phrase ("… by Ben"): a passive, whose word order says nothing about roles. */
  passive: boolean;
  contrast: boolean;
  change: boolean;
  additive: boolean;
}

const WORD_OR_NUMBER = /\p{Nd}{1,3}(?:,\p{Nd}{3})+(?:\.\p{Nd}+)?|v?\p{Nd}+(?:[.:]\p{Nd}+)+|[\p{L}\p{N}_]+/gu;
const MARKERS = new Set([...CHANGE_WORDS, ...ADDITIVE]);

/** Reads one statement (see {@link StatementView}). */
export function contentTokens(text: string): StatementView {
  const folded = text.replace(/[\u2018\u02bc\uff07\u00b4\u2032\u2019]/gu, "'");
  const lower = folded.toLowerCase();
  const seq: string[] = [];
  const named = new Set<number>();
  let sentenceStart = true;
  let lastEnd = 0;
  for (const match of folded.replace(/'/g, '').matchAll(WORD_OR_NUMBER)) {
    const raw = match[0];
    const between = folded.replace(/'/g, '').slice(lastEnd, match.index);
    if (/[.!?;:]\s*$/.test(between) && lastEnd > 0) sentenceStart = true;
    lastEnd = match.index + raw.length;
    const token = raw.toLowerCase();
    const first = sentenceStart;
    sentenceStart = false;
    if (NEGATIONS.has(token) || STOP_WORDS.has(token) || MARKERS.has(token)) continue;
    const term = /\p{Nd}/u.test(token) ? token.replace(/,/g, '') : stem(token);
    // A name: capitalised away from a sentence start, or with capitals inside (GitHub, CI).
    const capital = /^\p{Lu}/u.test(raw);
    const inner = /.\p{Lu}/u.test(raw);
    if ((capital && !first) || inner) named.add(seq.length);
    else if (capital && first) named.add(-1 - seq.length); // sentence-initial capital: a name only if the other side agrees
    seq.push(term);
  }
  const refTokens = negationTokens(text);
  let negations = refTokens.filter((t) => NEGATIONS.has(t)).length;
  negations += (lower.match(/\brather than\b|\binstead of\b/g) ?? []).length;
  return {
    seq,
    named,
    negations,
    passive: refTokens.includes('by'),
    contrast: refTokens.some((t) => CONTRAST.has(t)),
    change: refTokens.some((t) => CHANGE_WORDS.has(t)) || CHANGE_PHRASES.some((p) => p.test(lower)),
    additive: refTokens.some((t) => ADDITIVE.has(t)) || ADDITIVE_PHRASES.some((p) => p.test(lower)),
  };
}

/** Maximal runs of positions of `seq` whose word is not in `other`. */
function differingRuns(seq: readonly string[], other: ReadonlySet<string>): number[][] {
  const runs: number[][] = [];
  let current: number[] = [];
  seq.forEach((w, i) => {
    if (!other.has(w)) current.push(i);
    else if (current.length) {
      runs.push(current);
      current = [];
    }
  });
  if (current.length) runs.push(current);
  return runs;
}

type ValueKind = 'number' | 'day' | 'month' | 'colour' | 'antonym' | 'name';

const isNumber = (w: string): boolean => /\p{Nd}/u.test(w) || NUMBER_STEMS.has(w);

/** The kind of value two differing stretches share, or null when they are not exclusive values. */
function valueKind(a: StatementView, runA: number[], b: StatementView, runB: number[]): ValueKind | null {
  const wa = runA.map((i) => a.seq[i]!);
  const wb = runB.map((i) => b.seq[i]!);
  if (wa.some((x) => wb.some((y) => ANTONYMS.get(x)?.has(y)))) return 'antonym';
  if (wa.some(isNumber) && wb.some(isNumber)) return 'number';
  for (const [kind, set] of [['day', DAY_STEMS], ['month', MONTH_STEMS], ['colour', COLOUR_STEMS]] as const) {
    if (wa.some((x) => set.has(x)) && wb.some((y) => set.has(y))) return kind;
  }
  const isName = (v: StatementView, i: number, otherStartsNamed: boolean): boolean => v.named.has(i) || (v.named.has(-1 - i) && otherStartsNamed);
  const startsNamed = (v: StatementView, run: number[]): boolean => run.every((i) => v.named.has(i) || v.named.has(-1 - i));
  const aNamed = runA.every((i) => isName(a, i, startsNamed(b, runB)));
  const bNamed = runB.every((i) => isName(b, i, startsNamed(a, runA)));
  return aNamed && bNamed ? 'name' : null;
}

/** Two content words exchanged, everything else equal: the pair of positions, else null. */
function transposition(a: readonly string[], b: readonly string[]): [number, number] | null {
  if (a.length !== b.length || a.length < 2) return null;
  const diff: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) diff.push(i);
  if (diff.length !== 2) return null;
  const [i, j] = diff as [number, number];
  return a[i] === b[j] && a[j] === b[i] ? [i, j] : null;
}

/**
 * What the newer statement is to the older one: a contradiction, an update, or null (nothing
 * beyond similarity: a duplicate when they are close, else unrelated). See the module comment.
 */
export function comparePair(older: string, newer: string): PairVerdict | null {
  const a = contentTokens(older);
  const b = contentTokens(newer);
  const setA = new Set(a.seq);
  const setB = new Set(b.seq);
  const replaces = b.change && !a.change;
  const kindOf = (preference: boolean): PairVerdict['kind'] => (replaces || preference ? 'update' : 'contradiction');

  // 1. Negation, gated by content.
  if (a.negations % 2 !== b.negations % 2 && overlapCoefficient(setA, setB) >= NEGATION_CONTENT_GATE) {
    const noLonger = /\bno longer\b|\banymore\b|\bany more\b/.test(newer.toLowerCase());
    return { kind: noLonger || replaces ? 'update' : 'contradiction', pattern: 'negation' };
  }

  // 2. Swapped alternatives.
  // (Not when one of them is passive: "Ben deploys" / "… is deployed by Ben" swap places, not roles.)
  const swap = a.passive === b.passive ? transposition(a.seq, b.seq) : null;
  if (swap) {
    const [i, j] = swap;
    if ((a.contrast && b.contrast) || j - i >= 2) {
      return { kind: kindOf(false), pattern: 'swap', detail: `${a.seq[i]} ⇄ ${a.seq[j]}` };
    }
  }

  // 3. A value of the same frame.
  if (b.additive && !a.additive) return null;
  const shared = [...setA].filter((w) => setB.has(w));
  if (shared.length < 2 || shared.length / Math.min(setA.size, setB.size) < 0.5) return null;
  const runsA = differingRuns(a.seq, setB);
  const runsB = differingRuns(b.seq, setA);
  if (runsA.length !== 1 || runsB.length !== 1) return null;
  const [runA, runB] = [runsA[0]!, runsB[0]!];
  if (runA.length > MAX_VALUE_RUN || runB.length > MAX_VALUE_RUN) return null;
  const kind = valueKind(a, runA, b, runB);
  if (kind === null && !replaces) return null;
  const frame = shared;
  const exclusive = frame.some((w) => EXCLUSIVE.has(w));
  // An inclusive verb before the differing value: several values can hold at once.
  const verbAt = a.seq.findIndex((w) => INCLUSIVE.has(w));
  if (!exclusive && !replaces && verbAt >= 0 && verbAt < runA[0]!) return null;
  const preference = frame.some((w) => PREFERENCE.has(w));
  const detail = `${runA.map((i) => a.seq[i]).join(' ')} → ${runB.map((i) => b.seq[i]).join(' ')}`;
  return { kind: kindOf(preference), pattern: 'value', detail };
}
