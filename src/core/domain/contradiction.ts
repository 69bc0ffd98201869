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
 * 3. **value mismatch**: one differing stretch a side holding values of one kind (values.ts: times,
 *    numbers, quantities with their unit, days, months, colours; antonyms and opposite states,
 *    "light" / "dark", "locked" / "unlocked"; names: capitalised words, identifiers such as
 *    `us-east-1`), the rest the same: one shared word is frame enough when the stretches hold
 *    nothing but values ("The standup is at 9:30" / "… at 10:00"). Not when the frame's verb admits
 *    several values ("likes Python" / "likes TypeScript") unless the frame says only one is meant
 *    ("prefers", "favourite", "default", …), nor when the newer statement adds ("also", "too"),
 *    nor when a plain word beside the value changes the subject ("Tom is 7" / "Tom's sister is
 *    10"). With no value, the one choice a frame allows ("prefer tea" / "prefer coffee", "the
 *    default branch is main" / "… master"). With a change marker in the newer one ("now", "moved",
 *    "switched", "was upgraded to", …) the verb around the value may differ too. Only statements:
 *    past {@link MAX_STATEMENT_WORDS} content words a text holds several facts.
 *
 * Beside the patterns, {@link valuesDiffer} tells the conflict scan that two alike statements with
 * different values are not duplicates (conflicts.ts). Transcript lines are compared by what was
 * said (transcript.ts), and a name used to address someone ("Thanks, Gina!") is not a value.
 *
 * A conflict is an **update** when the newer statement says it replaces the older one (a change
 * marker it alone carries, "no longer", "anymore") or when it restates a preference (the frame
 * holds "prefer", "favourite", "want", …): people change their minds. Otherwise a
 * **contradiction**: one of the two is wrong, and the user should say which.
 *
 * Measured on SICK (trained on nothing but the rule thresholds, chosen on SICK TRAIN) and on a
 * hand-written set of agent-memory pairs: `bench/contradiction.ts`.
 */

import { overlapCoefficient } from './negation.ts';
import { contentTokens, valueSlots, type StatementView } from './statement.ts';
import { stem } from './stem.ts';
import { attributeChange, attributesOf } from './attributes.ts';
import { readTranscriptLine } from './transcript.ts';
import { comparableKind } from './values.ts';

export { contentTokens, type StatementView } from './statement.ts';

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
/**
 * The value rule reads statements, not stories: beyond this many content words a text holds
 * several facts (a chat turn greeting someone by name, then telling news), and a differing name
 * or number says nothing about one of them changing.
 */
export const MAX_STATEMENT_WORDS = 12;
/** Texts longer than this are documents, not statements: no pattern reads them (a 1 MiB memory would cost seconds a neighbour). */
export const MAX_STATEMENT_CHARS = 4_000;
const tooLong = (...texts: string[]): boolean => texts.some((t) => t.length > MAX_STATEMENT_CHARS);

const stems = (words: readonly string[]): ReadonlySet<string> => new Set(words.map(stem));
/** Verbs that admit several objects at once ("likes Python" and "likes TypeScript"). */
const INCLUSIVE = stems(['like', 'love', 'enjoy', 'speak', 'know', 'read', 'play', 'visit', 'support', 'contain', 'include', 'own', 'has', 'have']);
/**
 * Frame words that make a single value meant even with an inclusive verb, and make any
 * one-word substitution a changed choice ("prefer tea" / "prefer coffee", "use pnpm" / "use yarn").
 */
const EXCLUSIVE = stems(['prefer', 'preferred', 'favourite', 'favorite', 'main', 'primary', 'default', 'only', 'minimum', 'maximum', 'usual', 'usually', 'best', 'use', 'uses']);
/** Frame words of a preference: a changed value is an update (people change their minds). */
const PREFERENCE = stems(['prefer', 'preferred', 'preference', 'favourite', 'favorite', 'want', 'wants', 'wish', 'like', 'love']);

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

/** Opposite values: a listed pair, or a word and its un-/in-/dis- negation ("locked" / "unlocked"). */
function opposite(x: string, y: string): boolean {
  if (ANTONYMS.get(x)?.has(y)) return true;
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  return short.length >= 4 && /^(un|in|im|dis|non)/.test(long) && long.replace(/^(un|in|im|dis|non)-?/, '') === short;
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

type SlotKind = 'numeric' | 'quantity' | 'day' | 'month' | 'colour' | 'antonym' | 'name';

/**
 * A capital opening a sentence says nothing by itself ("Keep going", "Hey, …"). It is read as a
 * name only in parallel: both statements open with one differing capitalised word and go on
 * alike for at least two words ("Ben owns the billing service" / "Lisa owns …").
 */
const parallelOpening = (a: StatementView, runA: readonly number[], b: StatementView, runB: readonly number[]): boolean =>
  runA.length === 1 && runB.length === 1 && runA[0] === 0 && runB[0] === 0 && a.named.has(-1) && b.named.has(-1) && a.seq.length >= 3 && b.seq.length >= 3;

const isName = (v: StatementView, i: number, opening: boolean): boolean => v.named.has(i) || (opening && i === 0);

/** The kind of value two differing stretches share, or null when they are not exclusive values. */
function valueKind(a: StatementView, runA: readonly number[], b: StatementView, runB: readonly number[]): SlotKind | null {
  const wa = runA.map((i) => a.seq[i]!);
  const wb = runB.map((i) => b.seq[i]!);
  if (wa.some((x) => wb.some((y) => opposite(x, y)))) return 'antonym';
  const kindsOf = (v: StatementView, run: readonly number[]): Set<string> =>
    new Set(run.flatMap((i) => (v.kinds[i] ? [comparableKind(v.kinds[i]!)] : [])));
  const ka = kindsOf(a, runA);
  const kb = kindsOf(b, runB);
  for (const kind of ['numeric', 'quantity', 'day', 'month', 'colour'] as const) if (ka.has(kind) && kb.has(kind)) return kind;
  const opening = parallelOpening(a, runA, b, runB);
  return runA.every((i) => isName(a, i, opening)) && runB.every((i) => isName(b, i, opening)) ? 'name' : null;
}

/** Whether every word of the stretch is a value (a typed value, a name or an antonym member). */
function pureValue(v: StatementView, run: readonly number[], other: StatementView, otherRun: readonly number[]): boolean {
  const opening = parallelOpening(v, run, other, otherRun);
  const opposed = (w: string): boolean => ANTONYMS.has(w) || otherRun.some((j) => opposite(w, other.seq[j]!));
  return run.every((i) => v.kinds[i] !== null || isName(v, i, opening) || opposed(v.seq[i]!));
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

/** Whether the shared words make a frame: at least `min` of them and half the shorter statement. */
const frameHolds = (shared: number, a: ReadonlySet<string>, b: ReadonlySet<string>, min: number): boolean =>
  shared >= min && shared / Math.max(1, Math.min(a.size, b.size)) >= 0.5;

const CHOICE_VERBS = stems(['prefer', 'prefers', 'preferred', 'use', 'uses', 'choose', 'chose', 'pick', 'picked']);

/** Whether a substituted stretch is the single choice its frame allows (see {@link valueStretch}). */
function isChoice(v: StatementView, run: readonly number[]): boolean {
  const before = v.seq[run[0]! - 1];
  if (before !== undefined && CHOICE_VERBS.has(before)) return true;
  return run[run.length - 1] === v.seq.length - 1 && v.seq.some((w, i) => EXCLUSIVE.has(w) && i < run[0]!);
}

/**
 * The one differing stretch on each side that holds a value, when the statements share a frame:
 * `[runA, runB, kind]`, else null.
 * - One differing stretch a side, both values of one kind and nothing else: one shared word is
 *   frame enough ("The standup is at 9:30" / "… at 10:00"). A plain word beside the value names
 *   another subject or attribute ("Tom is 7" / "Tom's sister is 10", "6am on weekdays" / "8am on
 *   weekends"): no conflict.
 * - No value, but the one choice a frame allows: the object of "prefer" / "use" ("prefer tea" /
 *   "prefer coffee"), or what "the default / main / favourite …" is, at the statement's end
 *   ("The default branch is main" / "… master").
 * - With a change marker, the words around the value may differ too ("My sister lives in Boston" /
 *   "My sister moved to Chicago"): the value words of the differing stretches, one group a side.
 */
function valueStretch(a: StatementView, b: StatementView, replaces: boolean): [number[], number[], SlotKind | 'choice' | 'changed'] | null {
  const setA = new Set(a.seq);
  const setB = new Set(b.seq);
  const shared = [...setA].filter((w) => setB.has(w));
  if (shared.length === 0) return null;
  const runsA = differingRuns(a.seq, setB);
  const runsB = differingRuns(b.seq, setA);
  if (runsA.length === 1 && runsB.length === 1 && runsA[0]!.length <= MAX_VALUE_RUN && runsB[0]!.length <= MAX_VALUE_RUN) {
    const [runA, runB] = [runsA[0]!, runsB[0]!];
    const kind = valueKind(a, runA, b, runB);
    const [pureA, pureB] = [pureValue(a, runA, b, runB), pureValue(b, runB, a, runA)];
    if (kind && pureA && pureB) return [runA, runB, kind];
    if (!kind && runA.length <= 2 && runB.length <= 2 && isChoice(a, runA) && isChoice(b, runB)) return [runA, runB, 'choice'];
    if (!kind && replaces && frameHolds(shared.length, setA, setB, 2)) return [runA, runB, 'changed'];
  }
  if (!replaces) return null;
  const valueGroup = (v: StatementView, runs: number[][]): number[] | null => {
    const positions = runs.flat().filter((i) => v.kinds[i] !== null || v.named.has(i));
    const contiguous = positions.every((p, k) => k === 0 || p === positions[k - 1]! + 1);
    return positions.length > 0 && positions.length <= MAX_VALUE_RUN && contiguous ? positions : null;
  };
  const [ga, gb] = [valueGroup(a, runsA), valueGroup(b, runsB)];
  if (!ga || !gb) return null;
  const kind = valueKind(a, ga, b, gb);
  if (!kind) return null;
  const plainA = new Set(a.seq.filter((_, i) => !ga.includes(i)));
  const plainB = new Set(b.seq.filter((_, i) => !gb.includes(i)));
  return frameHolds([...plainA].filter((w) => plainB.has(w)).length, plainA, plainB, 1) ? [ga, gb, kind] : null;
}

/**
 * What the newer statement is to the older one: a contradiction, an update, or null (nothing
 * beyond similarity: a duplicate when they are close, else unrelated). See the module comment.
 */
export function comparePair(olderText: string, newerText: string): PairVerdict | null {
  if (tooLong(olderText, newerText)) return null;
  // A transcript turn is compared by what was said ("Jon said, \"Thanks!\"" / "… \"Agreed!\"").
  const [lineA, lineB] = [readTranscriptLine(olderText), readTranscriptLine(newerText)];
  const same = samePattern(lineA.body, lineB.body);
  if (same) return same;
  // One attribute with another value in other words (attributes.ts), said by the same person; a
  // note's label ("Landlord: Mr Hughes" / "New landlord: …") is part of what it says.
  const person = (s: string | null): boolean => s !== null && /^\p{Lu}[\p{L}'’-]*$/u.test(s) && attributesOf(s).size === 0;
  if (lineA.speaker !== lineB.speaker && (person(lineA.speaker) || person(lineB.speaker))) return null;
  const change = lineA.speaker === lineB.speaker ? attributeChange(lineA.body, lineB.body) : attributeChange(olderText, newerText);
  return change ? { kind: 'update', pattern: 'value', detail: change.detail } : null;
}

/** The patterns over one statement's words: negation, swapped alternatives, a value of the same frame. */
function samePattern(older: string, newer: string): PairVerdict | null {
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
  // (Not when one of them is passive: "Ben deploys" / "… is deployed by Ben" swap places, not roles;
  // nor, apart from a contrast, a name and a plain word: "The project lead is Dana" / "Dana leads the project".)
  const swap = a.passive === b.passive ? transposition(a.seq, b.seq) : null;
  if (swap) {
    const [i, j] = swap;
    const sameSort = a.named.has(i) === a.named.has(j) && b.named.has(i) === b.named.has(j);
    if ((a.contrast && b.contrast) || (j - i >= 2 && sameSort)) {
      return { kind: kindOf(a.seq.some((w) => PREFERENCE.has(w))), pattern: 'swap', detail: `${a.seq[i]} ⇄ ${a.seq[j]}` };
    }
  }

  // 3. A value of the same frame.
  if (b.additive && !a.additive) return null;
  if (a.seq.length > MAX_STATEMENT_WORDS || b.seq.length > MAX_STATEMENT_WORDS) return null;
  const stretch = valueStretch(a, b, replaces);
  if (!stretch) return null;
  const [runA, runB] = stretch;
  const frame = [...setA].filter((w) => setB.has(w));
  const exclusive = frame.some((w) => EXCLUSIVE.has(w));
  // An inclusive verb before the differing value: several values can hold at once.
  const verbAt = a.seq.findIndex((w) => INCLUSIVE.has(w));
  if (!exclusive && !replaces && verbAt >= 0 && verbAt < runA[0]!) return null;
  const detail = `${runA.map((i) => a.seq[i]).join(' ')} → ${runB.map((i) => b.seq[i]).join(' ')}`;
  // One attribute with a new value is an update, said or not ("My number is …" in January, "My
  // number is …" in March): the later one is the current value (issue #50).
  return { kind: 'update', pattern: 'value', detail };
}

/**
 * Whether two statements hold different values of one kind (a time, number, day, month, colour
 * or name that one has and the other lacks, on both sides), whatever their wording: "The standup
 * is at 9:30" / "Starting Monday the standup is at 10:00". Two such statements are never the
 * same statement, so never duplicates. `frame` says whether the rest agrees (no plain word
 * differs on both sides): then the pair is a changed value, else two facts about different
 * things ("the rate limit for free users is 100" / "… for paid users is 1,000").
 */
export function valuesDiffer(older: string, newer: string): { differ: boolean; frame: boolean } {
  if (tooLong(older, newer)) return { differ: false, frame: false };
  const a = contentTokens(readTranscriptLine(older).body);
  const b = contentTokens(readTranscriptLine(newer).body);
  if (a.seq.length > MAX_STATEMENT_WORDS || b.seq.length > MAX_STATEMENT_WORDS) return { differ: false, frame: false };
  const [sa, sb] = [valueSlots(a), valueSlots(b)];
  let differ = false;
  for (const [kind, va] of sa) {
    const vb = sb.get(kind);
    if (vb && [...va].some((x) => !vb.has(x)) && [...vb].some((y) => !va.has(y))) differ = true;
  }
  if (!differ) return { differ, frame: false };
  const plain = (v: StatementView, other: ReadonlySet<string>): string[] => v.seq.filter((w, i) => v.kinds[i] === null && !v.named.has(i) && !other.has(w));
  const [onlyA, onlyB] = [plain(a, new Set(b.seq)), plain(b, new Set(a.seq))];
  // "… also runs on GitLab CI": the newer adds a value, it does not change one.
  const adds = b.additive && !a.additive;
  return { differ, frame: !adds && (onlyA.length === 0 || onlyB.length === 0) };
}

/**
 * Whether the newer statement holds a value (time, number, day, month, colour, name) the older
 * does not: merging it into the older would lose that value.
 */
export function newerAddsValues(older: string, newer: string): boolean {
  if (tooLong(older, newer)) return false;
  const a = contentTokens(readTranscriptLine(older).body);
  const b = contentTokens(readTranscriptLine(newer).body);
  const valuesOf = (v: StatementView): Set<string> => new Set(v.seq.filter((_, i) => v.kinds[i] !== null || v.named.has(i)));
  const known = valuesOf(a);
  return [...valuesOf(b)].some((w) => !known.has(w));
}

/** Whether the newer statement replaces the older one by its own words (a change marker only it carries). */
export function saysItReplaces(older: string, newer: string): boolean {
  if (tooLong(older, newer)) return false;
  return contentTokens(newer).change && !contentTokens(older).change;
}
