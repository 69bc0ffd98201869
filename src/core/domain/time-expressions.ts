/**
 * Time in questions: the expressions of a query that name a time, turned into a window in the
 * memories' own time (`createdAt`: when the content happened). Pure: the anchor of relative
 * expressions ("last week", "yesterday") is passed in — the latest memory's time, or the store's
 * clock when the store is empty.
 *
 * Read (English, case-insensitive):
 * - dates: `8 May 2023`, `May 8, 2023`, `on 8 May`, `in May 2023`, `in May`, `in 2022`,
 *   `2023-05-08`; a month or day without a year takes the anchor's year, or the year before when
 *   that would lie after the anchor;
 * - relative: `today`, `yesterday`, `the day before yesterday`, `last/this/past week`, `last
 *   weekend`, `last/this month`, `last/this year`, `N days/weeks/months/years ago`, `in the last
 *   N days/weeks/months`, `recently`, `last <weekday>`;
 * - `when did …`, `how long ago …`, `what date/day/year/month …`: a question that asks for a
 *   time, with no window (recall prefers memories that say when something happened).
 *
 * "Two days before the trip" names a time relative to an event the store may hold; it is read as
 * a question asking for a time, not as a window (no event resolution without a model).
 */

export interface TimeWindow {
  /** Unix seconds, inclusive. */
  start: number;
  /** Unix seconds, exclusive. */
  end: number;
  /** The words that gave the window, for the explanation. */
  text: string;
}

export interface QueryTime {
  /** The windows the query names (an empty list when it names none). */
  windows: TimeWindow[];
  /** The query asks for a time ("when did …", "how long ago …"). */
  asksWhen: boolean;
}

const DAY = 86_400;
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_ABBR: Record<string, number> = { jan: 0, feb: 1, mar: 2, apr: 3, jun: 5, jul: 6, aug: 7, sep: 8, sept: 8, oct: 9, nov: 10, dec: 11 };
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const NUMBER_WORDS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, few: 3, couple: 2 };

const monthIndex = (word: string): number => {
  const w = word.toLowerCase();
  const full = MONTHS.indexOf(w);
  return full >= 0 ? full : (MONTH_ABBR[w] ?? -1);
};
const utc = (y: number, m: number, d: number): number => Date.UTC(y, m, d) / 1000;
const startOfDay = (t: number): number => Math.floor(t / DAY) * DAY;
const dateOf = (t: number): Date => new Date(t * 1000);

/** A month (0-11) of an unstated year: the anchor's, or the year before when it would lie after the anchor. */
function yearFor(month: number, day: number, anchor: number): number {
  const a = dateOf(anchor);
  const y = a.getUTCFullYear();
  return utc(y, month, day) > anchor + DAY ? y - 1 : y;
}

function unitSeconds(unit: string): number {
  if (unit.startsWith('day')) return DAY;
  if (unit.startsWith('week')) return 7 * DAY;
  if (unit.startsWith('month')) return 30 * DAY;
  return 365 * DAY;
}

const MONTH_RE = '(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)';
const NUM_RE = '(\\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|couple)';

/** Reads the time expressions of a query (see the module comment). */
export function readQueryTime(query: string, anchor: number): QueryTime {
  const q = query.toLowerCase();
  const windows: TimeWindow[] = [];
  const add = (start: number, end: number, text: string): void => void windows.push({ start, end, text: text.trim() });
  const taken: [number, number][] = [];
  const free = (m: RegExpExecArray): boolean => !taken.some(([s, e]) => m.index < e && m.index + m[0].length > s);
  const each = (re: RegExp, fn: (m: RegExpExecArray) => void): void => {
    for (const m of q.matchAll(re)) {
      const match = m as RegExpExecArray;
      if (!free(match)) continue;
      const before = windows.length;
      fn(match);
      if (windows.length > before) taken.push([match.index, match.index + match[0].length]);
    }
  };
  const today = startOfDay(anchor);

  // ISO dates.
  each(/\b(\d{4})-(\d{2})-(\d{2})\b/g, (m) => {
    const t = utc(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    add(t, t + DAY, m[0]);
  });
  // 8 May 2023 / 8th of May, 2023 / May 8, 2023 / May 8th.
  each(new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?(?: of)? ${MONTH_RE},?(?: (\\d{4}))?\\b`, 'g'), (m) => {
    const month = monthIndex(m[2]!);
    const day = Number(m[1]);
    if (day < 1 || day > 31) return;
    const year = m[3] ? Number(m[3]) : yearFor(month, day, anchor);
    const t = utc(year, month, day);
    add(t, t + DAY, m[0]);
  });
  each(new RegExp(`\\b(on |in |by |since |of )?${MONTH_RE} (\\d{1,2})(?:st|nd|rd|th)?(?:,? (\\d{4}))?\\b`, 'g'), (m) => {
    const month = monthIndex(m[2]!);
    const day = Number(m[3]);
    // "may 8 people come": the modal verb, unless a preposition or a year says it is the month.
    if (day < 1 || day > 31 || (m[2] === 'may' && !m[1] && !m[4])) return;
    const year = m[4] ? Number(m[4]) : yearFor(month, day, anchor);
    const t = utc(year, month, day);
    add(t, t + DAY, m[0]);
  });
  // (in) May 2023 / in May / in early June. "may" alone is a modal verb: only after "in"/"of"/"during".
  each(new RegExp(`\\b(?:(in|during|of|since|around|by) (?:early |mid-?|late )?)?${MONTH_RE}(?: (\\d{4}))?\\b`, 'g'), (m) => {
    const month = monthIndex(m[2]!);
    if (month < 0) return;
    if (!m[1] && !m[3] && (m[2] === 'may' || m[2] === 'march' || m[2]!.length <= 3)) return;
    const year = m[3] ? Number(m[3]) : yearFor(month, 1, anchor);
    add(utc(year, month, 1), utc(year, month + 1, 1), m[0]);
  });
  // in 2022 / during 2021.
  each(/\b(?:in|during|of|since|around) (\d{4})\b/g, (m) => {
    const year = Number(m[1]);
    if (year < 1970 || year > 2200) return;
    add(utc(year, 0, 1), utc(year + 1, 0, 1), m[0]);
  });
  // Relative days.
  each(/\bthe day before yesterday\b/g, (m) => add(today - 2 * DAY, today - DAY, m[0]));
  each(/\byesterday\b/g, (m) => add(today - DAY, today, m[0]));
  each(/\btoday|tonight|this morning|this afternoon|this evening\b/g, (m) => add(today, today + DAY, m[0]));
  each(/\btomorrow\b/g, (m) => add(today + DAY, today + 2 * DAY, m[0]));
  // N units ago / in the last N units / past N units.
  each(new RegExp(`\\b${NUM_RE} (day|week|month|year)s? ago\\b`, 'g'), (m) => {
    const n = /^\d+$/.test(m[1]!) ? Number(m[1]) : NUMBER_WORDS[m[1]!]!;
    const unit = unitSeconds(m[2]!);
    const centre = today - n * unit;
    const slack = Math.max(DAY, Math.round(unit / 2));
    add(centre - slack, centre + slack + DAY, m[0]);
  });
  each(new RegExp(`\\b(?:in|over|during) the (?:last|past) ${NUM_RE} (day|week|month|year)s?\\b`, 'g'), (m) => {
    const n = /^\d+$/.test(m[1]!) ? Number(m[1]) : NUMBER_WORDS[m[1]!]!;
    add(today - n * unitSeconds(m[2]!), today + DAY, m[0]);
  });
  // this/past week (the last seven days), last/previous week (the seven before), weekends, months, years.
  each(/\b(last|this|past|previous) (week|weekend|month|year)\b/g, (m) => {
    const a = dateOf(anchor);
    const previous = m[1] === 'last' || m[1] === 'previous';
    if (m[2] === 'week') {
      if (previous) add(today - 14 * DAY, today - 6 * DAY, m[0]);
      else add(today - 7 * DAY, today + DAY, m[0]);
    } else if (m[2] === 'weekend') {
      const day = a.getUTCDay();
      const saturday = m[1] === 'this' ? today + ((6 - day + 7) % 7) * DAY - (day === 0 ? 8 * DAY : 0) : today - (((day - 6 + 7) % 7) || 7) * DAY;
      add(saturday, saturday + 2 * DAY, m[0]);
    } else {
      const back = previous ? 1 : 0;
      if (m[2] === 'month') add(utc(a.getUTCFullYear(), a.getUTCMonth() - back, 1), utc(a.getUTCFullYear(), a.getUTCMonth() - back + 1, 1), m[0]);
      else add(utc(a.getUTCFullYear() - back, 0, 1), utc(a.getUTCFullYear() - back + 1, 0, 1), m[0]);
    }
  });
  each(/\blast (sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/g, (m) => {
    const target = WEEKDAYS.indexOf(m[1]!);
    const back = ((dateOf(anchor).getUTCDay() - target + 7) % 7) || 7;
    add(today - back * DAY, today - back * DAY + DAY, m[0]);
  });
  each(/\brecently|lately|these days\b/g, (m) => add(today - 30 * DAY, today + DAY, m[0]));

  const asksWhen = /\b(when|what (?:date|day|time|year|month)|which (?:date|day|year|month)|how long ago|since when)\b/.test(q);
  return { windows, asksWhen };
}

/** "Two days before (the trip)", "the week after", "a month earlier": a time relative to an event. */
const RELATIVE_TO_EVENT = new RegExp(`\\b(?:the )?(?:${NUM_RE} )?(?:day|night|week|weekend|month|year)s? (?:before|after|earlier|later)\\b`, 'g');

/**
 * The query with the words that name a time blanked out (issue #50 item 5): "last week",
 * "yesterday", "in May", "two days before" feed the time signal (or ask for a time), never the
 * lexical score ("What did Kwame say about the trip last week?" is not about the word "week").
 * Lower-cased, as the lexical terms are.
 */
export function withoutTimeWords(query: string, anchor = 0): string {
  let q = query.toLowerCase();
  const phrases = readQueryTime(q, Number.isFinite(anchor) ? anchor : 0).windows.map((w) => w.text);
  for (const m of q.matchAll(RELATIVE_TO_EVENT)) phrases.push(m[0]);
  for (const phrase of phrases.sort((a, b) => b.length - a.length)) if (phrase) q = q.split(phrase).join(' ');
  return q;
}

/** Whether a memory's text names a window's time in the query's own words (a whole-word match). */
export function saysTheSameTime(text: string, windows: readonly TimeWindow[]): boolean {
  const lower = text.toLowerCase();
  return windows.some((w) => {
    if (!w.text) return false;
    const at = lower.indexOf(w.text);
    if (at < 0) return false;
    const before = at === 0 ? ' ' : lower[at - 1]!;
    const after = lower[at + w.text.length] ?? ' ';
    return !/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after);
  });
}

/**
 * How well a time fits the windows: 1 inside one, falling off outside with the distance to the
 * nearest, over the window's own length (at least a week): a memory from the day after "last
 * week" still counts for something, one from last year nothing.
 */
export function timeFit(t: number, windows: readonly TimeWindow[]): number {
  let best = 0;
  for (const w of windows) {
    if (t >= w.start && t < w.end) return 1;
    const distance = t < w.start ? w.start - t : t - w.end;
    const scale = Math.max(7 * DAY, w.end - w.start);
    best = Math.max(best, Math.exp(-distance / scale));
  }
  return best;
}
