/**
 * Reading a short statement for the conflict rules (contradiction.ts) and the recall signals
 * (query.ts): its words with their sentence starts and the names used to address someone
 * ("Thanks, Gina!"), and its content as the rules compare it — stemmed content words with values
 * read typed and normalised (values.ts), names marked, negations and change / addition / contrast
 * markers noted aside. Pure.
 */
import { EXTENDED_NEGATION_WORDS, negationTokens } from './negation.ts';
import { stem } from './stem.ts';
import { STOP_WORDS } from './stopwords.ts';
import { comparableKind, readValue, type RawWord, type ValueKind } from './values.ts';

export const NEGATIONS: ReadonlySet<string> = new Set(EXTENDED_NEGATION_WORDS);
/** Words (as the reference tokeniser leaves them) that set alternatives against each other. */
const CONTRAST = new Set(['not', 'never', 'rather', 'instead', 'over', 'than', 'vs', 'versus', 'without', 'no', 'to']);
/** Words and phrases by which a newer statement says it replaces an older one. */
const CHANGE_WORDS = new Set([
  'now', 'moved', 'move', 'moves', 'switched', 'switch', 'changed', 'change', 'anymore', 'nowadays', 'updated',
  'became', 'become', 'replaced', 'migrated', 'renamed', 'newly', 'starting', 'henceforth', 'new', 'relocated',
  'rescheduled', 'postponed', 'upgraded', 'downgraded', 'raised', 'lowered', 'increased', 'decreased', 'reduced',
  'shortened', 'extended', 'rewritten', 'rewrote', 'reassigned', 'transferred', 'promoted', 'bumped',
]);
const CHANGE_PHRASES = [/\bno longer\b/, /\bany more\b/, /\bfrom now on\b/, /\bas of\b/, /\bgoing forward\b/, /\bthese days\b/, /\binstead\b(?!\s+of)/, /\bwent (?:up|down)\b/, /\bpushed back\b/];
const ADDITIVE = new Set(['also', 'too', 'additionally', 'another', 'plus']);
const ADDITIVE_PHRASES = [/\bas well\b/, /\bin addition\b/];
/** One statement, as the rules see it. */
export interface StatementView {
  /** Content words in order: stemmed, stop words, negations and markers left out; values by their normalised key. */
  seq: string[];
  /** The value kind of each position of `seq` (null for a plain word). */
  kinds: (ValueKind | null)[];
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

/** Numbers with separators, versions and times, identifiers written with dots or hyphens (`Fly.io`, `us-east-1`), words. */
const WORD_OR_NUMBER = /\p{Nd}{1,3}(?:,\p{Nd}{3})+(?:\.\p{Nd}+)?|v?\p{Nd}+(?:[.:]\p{Nd}+)+|[\p{L}\p{N}_]+(?:[.-][\p{L}\p{N}_]+)*/gu;
const MARKERS = new Set([...CHANGE_WORDS, ...ADDITIVE]);

/** Words that address someone when a name follows them ("Hey Mel!", "Thanks Gina!"). */
const INTERJECTIONS = new Set(['hey', 'hi', 'hello', 'thanks', 'thank', 'wow', 'bye', 'congrats', 'go', 'yeah', 'yes', 'sure', 'oh', 'sorry', 'ok', 'okay', 'dear', 'yo', 'aw', 'aww', 'cheers', 'great', 'awesome', 'nice', 'cool', 'welcome', 'morning', 'night', 'hiya', 'yay', 'woah', 'whoa', 'ya']);

/** Interjections that say nothing about the world ("Hey", "Wow", "Thanks"): left out of a statement's content. */
const GREETINGS = new Set(['hey', 'hi', 'hello', 'wow', 'bye', 'oh', 'yeah', 'yay', 'woah', 'whoa', 'aw', 'aww', 'hiya', 'yo', 'ok', 'okay', 'thanks', 'thank', 'congrats', 'cheers']);

/** Titles written with a full stop that does not end a sentence. */
const TITLES = new Set(['dr', 'mr', 'mrs', 'ms', 'mx', 'prof', 'st', 'sr', 'jr', 'mt', 'no', 'vs']);

export interface Word extends RawWord {
  /** A name used to address someone ("Thanks, Gina!"): not part of what the statement says. */
  vocative: boolean;
}

/** A text with its apostrophes dropped, as its words are read ("o'clock" → `oclock`). */
export const dropApostrophes = (text: string): string => text.replace(/[\u2018\u02bc\uff07\u00b4\u2032\u2019']/gu, '');

/** The words of a text with their sentence starts (apostrophes dropped: "o'clock" → `oclock`). */
export function statementWords(text: string): Word[] {
  const folded = dropApostrophes(text);
  const matches = [...folded.matchAll(WORD_OR_NUMBER)];
  return matches.map((match, k) => {
    const prev = matches[k - 1];
    const before = folded.slice(prev ? prev.index + prev[0].length : 0, match.index);
    const end = match.index + match[0].length;
    const after = folded.slice(end, matches[k + 1]?.index ?? folded.length);
    // A sentence starts after . ! ? ; : and after an opening quote (`Jon said, "Thanks!"`).
    // (Not after a title: "Dr. Shah", "Mrs. Brown".)
    const afterTitle = prev !== undefined && TITLES.has(prev[0].toLowerCase()) && /^\.\s+$/.test(before);
    const sentenceStart = k === 0 || (!afterTitle && /[.!?;:]\s*$|["\u201c\u00ab(]\s*$/u.test(before));
    const addressed = /^\s*[!,?]/.test(after) || (/^\s*[.]?\s*$/.test(after) && k === matches.length - 1);
    const afterGreeting = /,\s*$/.test(before) || (prev !== undefined && INTERJECTIONS.has(prev[0].toLowerCase())) || sentenceStart;
    const vocative = /^\p{Lu}\p{Ll}/u.test(match[0]) && addressed && afterGreeting && !(sentenceStart && k === matches.length - 1);
    return { raw: match[0], sentenceStart, vocative };
  });
}

/** Reads one statement (see {@link StatementView}). */
export function contentTokens(text: string): StatementView {
  const lower = text.replace(/[\u2018\u02bc\uff07\u00b4\u2032\u2019]/gu, "'").toLowerCase();
  const words = statementWords(text);
  const seq: string[] = [];
  const kinds: (ValueKind | null)[] = [];
  const named = new Set<number>();
  for (let i = 0; i < words.length; i++) {
    const { raw, sentenceStart } = words[i]!;
    const token = raw.toLowerCase();
    const value = readValue(words, i);
    if (value) {
      seq.push(value.key);
      kinds.push(value.kind);
      i += value.width - 1;
      continue;
    }
    // "is on" / "is off": a state when it ends the statement ("The flag for search is on").
    const state = (token === 'on' || token === 'off' || token === 'up' || token === 'down') && (i === words.length - 1 || words[i + 1]!.sentenceStart);
    if (words[i]!.vocative || GREETINGS.has(token) || (!state && (NEGATIONS.has(token) || STOP_WORDS.has(token) || MARKERS.has(token)))) continue;
    // A name: capitalised away from a sentence start, or with capitals inside (GitHub, CI).
    const capital = /^\p{Lu}/u.test(raw);
    const inner = /.\p{Lu}/u.test(raw);
    // An identifier (`us-east-1`, `ec2`, `Fly.io`) names one thing like a capitalised word.
    const identifier = /\p{L}/u.test(raw) && (/\p{Nd}/u.test(raw) || raw.includes('.'));
    if ((capital && !sentenceStart) || inner || identifier) named.add(seq.length);
    else if (capital && sentenceStart) named.add(-1 - seq.length); // sentence-initial capital: a name only if the other side agrees
    seq.push(stem(token));
    kinds.push(null);
  }
  const refTokens = negationTokens(text);
  let negations = refTokens.filter((t) => NEGATIONS.has(t)).length;
  negations += (lower.match(/\brather than\b|\binstead of\b/g) ?? []).length;
  return {
    seq,
    kinds,
    named,
    negations,
    passive: refTokens.includes('by'),
    contrast: refTokens.some((t) => CONTRAST.has(t)),
    change: refTokens.some((t) => CHANGE_WORDS.has(t)) || CHANGE_PHRASES.some((p) => p.test(lower)),
    additive: refTokens.some((t) => ADDITIVE.has(t)) || ADDITIVE_PHRASES.some((p) => p.test(lower)),
  };
}

/** A statement's values by comparable kind — names (words written as names), numbers, times, days… — each a set of its normalised words. */
export function valueSlots(v: StatementView): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  v.seq.forEach((word, i) => {
    const kind = v.kinds[i] ? comparableKind(v.kinds[i]!) : v.named.has(i) ? 'name' : null;
    if (!kind) return;
    if (!out.has(kind)) out.set(kind, new Set());
    out.get(kind)!.add(word);
  });
  return out;
}
