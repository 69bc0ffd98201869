/**
 * What a recall query asks beyond its words, and what a memory offers to match it: the names in a
 * question ("What did Caroline…", "Melanie's kids"), its quoted phrases, and the time it names
 * (time-expressions.ts); on the memory's side, who said it (the leading "X said" of a transcript
 * line), the names it mentions, and whether it says when something happened. The recall signals
 * `entity`, `phrase` and `time` (signals.ts) read these. Pure.
 */
import { bm25Idf } from './bm25.ts';
import { dropApostrophes, statementWords } from './statement.ts';
import { STOP_WORDS } from './stopwords.ts';
import { readQueryTime, type QueryTime } from './time-expressions.ts';
import { readTranscriptLine } from './transcript.ts';
import type { Memory } from '../types.ts';

export interface QueryAnalysis {
  /** Names in the query, lower-cased, possessives dropped ("Melanie's" → `melanie`). */
  names: string[];
  /**
   * Each name's weight, in the order of `names` ({@link withPoolNames}: its rarity among the
   * candidates); absent, every name weighs the same.
   */
  nameWeights?: number[];
  /** Quoted phrases, lower-cased and whitespace-folded. */
  phrases: string[];
  time: QueryTime;
}

/** Capitalised words that open a question or name a time, never a person or thing asked about. */
const NOT_NAMES = new Set([
  'what', 'when', 'where', 'who', 'whom', 'whose', 'which', 'why', 'how', 'did', 'does', 'do', 'is', 'are', 'was', 'were',
  'can', 'could', 'would', 'should', 'will', 'has', 'have', 'had', 'tell', 'list', 'name', 'give', 'show', 'find', 'i',
  'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'january', 'february', 'march', 'april',
  'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december', 'yes', 'no', 'ok', 'please',
]);

const fold = (text: string): string => text.toLowerCase().replace(/\s+/g, ' ').trim();

/** A capitalised word as a name: lower-cased, a possessive dropped ("Melanie's" → `melanie`; the reader drops apostrophes). */
function nameOf(raw: string, text: string): string {
  const word = raw.toLowerCase();
  if (!word.endsWith('s')) return word;
  const stem = raw.slice(0, -1);
  // The plain substring first: most words ending in "s" are no possessive, and need no pattern.
  if (!text.includes(`${stem}'s`) && !text.includes(`${stem}’s`)) return word;
  return possessive(stem).test(text) ? word.slice(0, -1) : word;
}

/** `\bStem['’]s\b`, kept by stem (a pattern without the g flag keeps no state between tests). */
const possessives = new Map<string, RegExp>();
function possessive(stem: string): RegExp {
  let pattern = possessives.get(stem);
  if (!pattern) {
    if (possessives.size >= 10_000) possessives.clear();
    pattern = new RegExp(`\\b${stem}['’]s\\b`, 'u');
    possessives.set(stem, pattern);
  }
  return pattern;
}
/** A capital letter (one without a lower-case form too) opening a string: what makes a word a name. */
const CAPITAL = /^\p{Lu}/u;

const QUOTED = /"([^"]{2,200})"|“([^”]{2,200})”|(?<![\p{L}])'([^']{2,200})'(?![\p{L}])/gu;

/** Characters of a query read for names, quotes and times: a question, not a document pasted in (up to 1 MiB). */
export const QUERY_ANALYSIS_CHARS = 4_000;

/** Reads a query (see the module comment). `anchor`: the time relative expressions count from. */
export function analyseQuery(fullQuery: string, anchor: number): QueryAnalysis {
  const query = fullQuery.length > QUERY_ANALYSIS_CHARS ? fullQuery.slice(0, QUERY_ANALYSIS_CHARS) : fullQuery;
  const phrases = [...query.matchAll(QUOTED)].map((m) => fold(m[1] ?? m[2] ?? m[3] ?? '')).filter((p) => p.includes(' ') || p.length >= 3);
  const names = new Set<string>();
  for (const w of statementWords(query)) {
    if (!CAPITAL.test(w.raw)) continue;
    const name = nameOf(w.raw, query);
    // "Fridays", "Mondays": a day, not a person.
    const singular = name.endsWith('s') ? name.slice(0, -1) : name;
    if (NOT_NAMES.has(name) || NOT_NAMES.has(singular) || STOP_WORDS.has(name) || name.length < 2) continue;
    names.add(name);
  }
  return { names: [...names], phrases, time: readQueryTime(query, anchor) };
}

/** What a memory offers the query signals, each part read on first use (a recall asks only for what its query needs). */
export interface MemoryEntities {
  /** The speaker of a transcript line, lower-cased with apostrophes dropped (as a query's names are read), or null. */
  readonly speaker: string | null;
  /** The speaker as written. */
  readonly speakerName: string | null;
  /** The speaker as `speaker` gives it and its first word ("caroline" of "caroline smith"), or null. */
  readonly speakerParts: { readonly speaker: string; readonly first: string } | null;
  /** Names the words said mention, lower-cased, possessives dropped; a name used to address someone is left out. */
  readonly mentions: ReadonlySet<string>;
  /**
   * The mentions written with a capital where no sentence starts ("my sister Priya", not "Football
   * training…"): what makes a word a question writes in lower case ("priya") a name.
   */
  readonly properNames: ReadonlySet<string>;
  /** True when the words said hold `word` (lower-case) written in lower case: a common word, not only a name. */
  writesLowerCase(word: string): boolean;
  /** The words said, lower-cased and whitespace-folded (for quoted phrases). */
  readonly folded: string;
  /** The words said name a time ("yesterday", "last week", "in May", "two days ago", a date). */
  readonly saysWhen: boolean;
  /** False when the words said cannot mention `name` (lower-case): a cheap test before `mentions`. */
  mayMention(name: string): boolean;
}

const TIME_WORDS =
  /\b(yesterday|today|tonight|tomorrow|ago|last (?:week|weekend|month|year|night|time)|next (?:week|weekend|month|year)|this (?:week|weekend|month|year|morning|evening)|recently|lately|(?:19|20)\d{2}|since|until|daily|weekly|monthly|every (?:day|week|month|morning|evening|night)|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|january|february|march|april|june|july|august|september|october|november|december|noon|midnight|\d{1,2}(?::\d{2})?\s?(?:am|pm)|\d{1,2}:\d{2})\b/i;

class Entities implements MemoryEntities {
  private line: { speaker: string | null; body: string } | undefined;
  private names: Set<string> | undefined;
  private proper: Set<string> | undefined;
  private when: boolean | undefined;
  private foldedBody: string | undefined;
  private lowered: string | undefined;
  private apostropheFree: string | undefined;
  /** The speaker lower-cased, and its first word (null: no speaker); read once. */
  private who: { speaker: string; first: string } | null | undefined;
  constructor(private readonly text: string) {}
  private get said(): { speaker: string | null; body: string } {
    // A long memory is read by its opening: who said it, the names and times near the start.
    return (this.line ??= readTranscriptLine(this.text.length > QUERY_ANALYSIS_CHARS ? this.text.slice(0, QUERY_ANALYSIS_CHARS) : this.text));
  }
  get speakerName(): string | null {
    return this.said.speaker;
  }
  get speaker(): string | null {
    return this.speakerParts?.speaker ?? null;
  }
  /** The speaker and its first word, lower-cased (null: no speaker). */
  get speakerParts(): { speaker: string; first: string } | null {
    if (this.who === undefined) {
      // Apostrophes dropped, as in the query's names ("O'Brien" → `obrien`).
      const speaker = this.said.speaker === null ? null : dropApostrophes(this.said.speaker).toLowerCase();
      this.who = speaker === null ? null : { speaker, first: speaker.split(' ')[0]! };
    }
    return this.who;
  }
  get mentions(): ReadonlySet<string> {
    if (!this.names) {
      this.names = new Set();
      for (const w of statementWords(this.said.body)) {
        if (!w.vocative && CAPITAL.test(w.raw)) this.names.add(nameOf(w.raw, this.said.body));
      }
    }
    return this.names;
  }
  get properNames(): ReadonlySet<string> {
    if (!this.proper) {
      this.proper = new Set();
      for (const w of statementWords(this.said.body)) {
        if (!w.vocative && !w.sentenceStart && CAPITAL.test(w.raw)) this.proper.add(nameOf(w.raw, this.said.body));
      }
    }
    return this.proper;
  }
  writesLowerCase(word: string): boolean {
    const body = (this.apostropheFree ??= dropApostrophes(this.said.body));
    for (let i = body.indexOf(word); i >= 0; i = body.indexOf(word, i + 1)) {
      const before = i === 0 ? '' : body[i - 1]!;
      const after = body[i + word.length] ?? '';
      if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after)) return true;
    }
    return false;
  }
  get folded(): string {
    return (this.foldedBody ??= fold(this.said.body));
  }
  mayMention(name: string): boolean {
    // Every mention is a capitalised word of the body, lower-cased (a possessive's "s" dropped):
    // the name occurs in the lower-cased body where the body has a capital. Most occurrences of
    // a query's name in other memories are the word in lower case ("aspirin" for "Aspirin …"),
    // and they need no reading of the words. Where lower-casing changed the length, positions
    // do not line up and any occurrence counts.
    // The words are read with their apostrophes dropped ("O'Brien" → `obrien`), and so is this.
    const body = (this.apostropheFree ??= dropApostrophes(this.said.body));
    const lowered = (this.lowered ??= body.toLowerCase());
    if (lowered.length !== body.length) return lowered.includes(name);
    for (let i = lowered.indexOf(name); i >= 0; i = lowered.indexOf(name, i + 1)) {
      if (body[i] !== lowered[i] || CAPITAL.test(body.slice(i, i + 2))) return true;
    }
    return false;
  }
  get saysWhen(): boolean {
    return (this.when ??= TIME_WORDS.test(this.said.body) || /\b\d{1,2}(?:st|nd|rd|th)? of\b|\b\d{4}-\d{2}-\d{2}\b/.test(this.said.body));
  }
}

/**
 * Memo of the readings by text: a recall reads the same memories again and again. Bounded by the
 * characters it holds (texts go up to 1 MiB), not only by entries; cleared whole when full.
 */
const memo = new Map<string, Entities>();
const MEMO_ENTRIES = 20_000;
const MEMO_CHARS = 4_000_000;
let memoChars = 0;

export function memoryEntities(memory: Pick<Memory, 'text'>): MemoryEntities {
  let e = memo.get(memory.text);
  if (!e) {
    e = new Entities(memory.text);
    if (memory.text.length > MEMO_CHARS / 4) return e; // a very long text is read, not kept
    if (memo.size >= MEMO_ENTRIES || memoChars + memory.text.length > MEMO_CHARS) {
      memo.clear();
      memoChars = 0;
    }
    memo.set(memory.text, e);
    memoChars += memory.text.length;
  }
  return e;
}

/** Credit for a name: said by that person 1, mentions them 0.5 (a first name also matches a full name's first word). */
export function nameCredit(entities: MemoryEntities, name: string): number {
  const who = entities.speakerParts;
  if (who !== null && (who.speaker === name || who.first === name)) return 1;
  return entities.mayMention(name) && entities.mentions.has(name) ? 0.5 : 0;
}

/**
 * The query's names read against the recall's candidates (issue #51 item 2):
 * - **case**: a word the query writes in lower case ("what does gerald's dog eat?") is a name when
 *   a candidate writes it with a capital where no sentence starts, or is said by someone of that
 *   name; a word capitalised only at the start of a sentence ("Football training…") makes no name;
 * - **rarity**: each name weighs by BM25's idf over the candidates that name it (said by or
 *   mentioning), so the two speakers of a conversation, named by most of its turns, count for
 *   little beside a pet, a book or a place only a few turns name.
 * `text` is the query as `analysis` read it.
 */
export function withPoolNames(analysis: QueryAnalysis, text: string, pool: readonly Pick<Memory, 'text'>[]): QueryAnalysis {
  const query = text.length > QUERY_ANALYSIS_CHARS ? text.slice(0, QUERY_ANALYSIS_CHARS) : text;
  const names = new Set(analysis.names);
  const entities = pool.map((m) => memoryEntities(m));
  for (const w of statementWords(query)) {
    if (CAPITAL.test(w.raw)) continue;
    const word = nameOf(w.raw, query);
    if (names.has(word) || word.length < 2 || NOT_NAMES.has(word) || STOP_WORDS.has(word)) continue;
    // A name mid-sentence or a speaker; one only opening sentences is a name when no candidate also writes it in lower case.
    const named = (e: MemoryEntities): boolean => e.speakerParts?.speaker === word || e.speakerParts?.first === word || (e.mayMention(word) && e.properNames.has(word));
    const opens = (e: MemoryEntities): boolean => e.mayMention(word) && e.mentions.has(word);
    const known = entities.some(named) || (entities.some(opens) && !entities.some((e) => e.writesLowerCase(word)));
    if (known) names.add(word);
  }
  if (names.size === 0) return analysis;
  const list = [...names];
  // A name one candidate holds weighs 1; a commoner one its idf's share of that.
  const rarest = bm25Idf(entities.length, 1);
  const nameWeights = list.map((name) => {
    let df = 0;
    for (const e of entities) if (nameCredit(e, name) > 0) df += 1;
    return rarest > 0 ? Math.min(1, bm25Idf(entities.length, Math.max(df, 1)) / rarest) : 1;
  });
  return { ...analysis, names: list, nameWeights };
}
