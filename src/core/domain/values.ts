/**
 * The values a short statement holds, typed and normalised, so that two statements can be
 * compared slot by slot: "The standup is at 9:30" holds the time 9:30, "… moved to 10am" the time
 * 10:00; "Tom is seven" and "Tom is 7 years old" hold the same number. Pure, no model.
 *
 * - **time**: `9:30`, `14:00`, `9am`, `6:00 pm`, `6 pm`, `10 o'clock`, `noon`, `midnight` →
 *   `h:mm` on a 24-hour clock when am/pm says so (`9:30` and `09:30` are one value);
 * - **number**: digits (thousands separators and ordinal suffixes dropped: `2,000` → `2000`,
 *   `25th` → `25`), versions (`1.27`, `v2.3.1`), and number words (`two` → `2`, `twice` → `2`);
 * - **quantity**: a number with its unit (`15 minutes`, `2 weeks`, `10 MB`, `39 dollars`), keyed by
 *   the unit's dimension: durations compare with durations, never with a clock time;
 * - **day** and **month**: weekday and month names (plurals and abbreviations folded: `Fridays`,
 *   `Sept`); "may" only when written as a name (`May`, not at a sentence start);
 * - **colour**; and **names** are marked by the caller (capitalisation is positional).
 */

export type ValueKind = 'time' | 'number' | 'quantity' | 'day' | 'month' | 'colour';

const NUMBER_WORDS: Record<string, string> = {
  zero: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9', ten: '10',
  eleven: '11', twelve: '12', thirteen: '13', fourteen: '14', fifteen: '15', sixteen: '16', seventeen: '17', eighteen: '18',
  nineteen: '19', twenty: '20', thirty: '30', forty: '40', fifty: '50', sixty: '60', seventy: '70', eighty: '80', ninety: '90',
  hundred: '100', thousand: '1000', once: '1', twice: '2', single: '1', double: '2', first: '1', second: '2', third: '3',
  fourth: '4', fifth: '5', half: '0.5', dozen: '12',
};
const WEEKDAYS: Record<string, string> = {
  monday: 'monday', mon: 'monday', tuesday: 'tuesday', tue: 'tuesday', tues: 'tuesday', wednesday: 'wednesday', wed: 'wednesday',
  thursday: 'thursday', thu: 'thursday', thur: 'thursday', thurs: 'thursday', friday: 'friday', fri: 'friday',
  saturday: 'saturday', sat: 'saturday', sunday: 'sunday', sun: 'sunday',
};
const MONTHS: Record<string, string> = {
  january: 'january', jan: 'january', february: 'february', feb: 'february', march: 'march', mar: 'march', april: 'april',
  apr: 'april', may: 'may', june: 'june', jun: 'june', july: 'july', jul: 'july', august: 'august', aug: 'august',
  september: 'september', sep: 'september', sept: 'september', october: 'october', oct: 'october', november: 'november',
  nov: 'november', december: 'december', dec: 'december',
};
/** Month words that are also everyday words: a month only when written as a name. */
const AMBIGUOUS_MONTHS = new Set(['may', 'march', 'mar', 'jan', 'sat', 'sun', 'wed', 'dec', 'oct', 'aug']);
const COLOURS = new Set(['red', 'green', 'blue', 'yellow', 'orange', 'purple', 'black', 'white', 'gray', 'grey', 'pink', 'brown']);
const MERIDIEM = new Set(['am', 'pm', 'a.m', 'p.m']);

/** Units a number may carry, by dimension (singular and plural; compared by dimension). */
const UNITS: Record<string, string> = {};
for (const [dimension, words] of [
  ['duration', 'second seconds sec secs minute minutes min mins hour hours hr hrs day days week weeks month months year years'],
  ['size', 'byte bytes kb mb gb tb kib mib gib'],
  ['money', 'euro euros eur dollar dollars usd pound pounds gbp cent cents'],
  ['distance', 'metre metres meter meters km kilometre kilometres kilometers mile miles'],
  ['percent', 'percent'],
] as const) for (const w of words.split(' ')) UNITS[w] = dimension;


/** One word of a statement, as the value reader sees it. */
export interface RawWord {
  /** As written. */
  raw: string;
  /** Whether it opens a sentence (its capital says nothing then). */
  sentenceStart: boolean;
}

/** A value read at one word: its kind and the normalised key two statements compare. */
export interface ReadValue {
  kind: ValueKind;
  key: string;
  /** Words it used (a time may take the `pm` or `o'clock` after it). */
  width: number;
}

function clock(hours: number, minutes: number, meridiem: string | undefined): string | null {
  if (!Number.isInteger(hours) || !Number.isInteger(minutes) || minutes > 59) return null;
  let h = hours;
  if (meridiem) {
    if (h < 1 || h > 12) return null;
    h = (h % 12) + (meridiem.startsWith('p') ? 12 : 0);
  } else if (h > 24) return null;
  return `${h}:${String(minutes).padStart(2, '0')}`;
}

/**
 * The value at `words[i]`, or null. A number directly followed by am/pm/o'clock, or written with
 * minutes after a colon, is a time.
 */
export function readValue(words: readonly RawWord[], i: number): ReadValue | null {
  const w = words[i]!;
  const token = w.raw.toLowerCase();
  const next = words[i + 1]?.raw.toLowerCase();
  if (token === 'noon' || token === 'midday') return { kind: 'time', key: '12:00', width: 1 };
  if (token === 'midnight') return { kind: 'time', key: '0:00', width: 1 };
  const glued = /^(\d{1,2})(?:[:.](\d{2}))?(am|pm|h)$/.exec(token);
  if (glued) {
    const key = clock(Number(glued[1]), Number(glued[2] ?? 0), glued[3] === 'h' ? undefined : glued[3]);
    if (key) return { kind: 'time', key, width: 1 };
  }
  const hm = /^(\d{1,2})(?:([:.])(\d{2}))?$/.exec(token);
  if (hm && (next === 'oclock' || (next !== undefined && MERIDIEM.has(next)))) {
    const key = clock(Number(hm[1]), Number(hm[3] ?? 0), next === 'oclock' ? undefined : next);
    if (key) return { kind: 'time', key, width: 2 };
  }
  if (hm && hm[2] === ':') {
    const key = clock(Number(hm[1]), Number(hm[3]), undefined);
    if (key) return { kind: 'time', key, width: 1 };
  }
  const number = /^v?\p{Nd}/u.test(token)
    ? token.replace(/^v(?=\d)/, '').replace(/(?<=\d),(?=\d{3})/g, '').replace(/(?<=\d)(st|nd|rd|th)$/, '')
    : NUMBER_WORDS[token];
  if (number !== undefined) {
    const unit = next === undefined ? undefined : UNITS[next];
    if (unit) return { kind: 'quantity', key: `${number} ${unit}`, width: 2 };
    return { kind: 'number', key: number, width: 1 };
  }
  const plural = token.endsWith('s') ? token.slice(0, -1) : token;
  const day = WEEKDAYS[token] ?? (token.length > 6 ? WEEKDAYS[plural] : undefined);
  if (day && (token.length > 4 || /^\p{Lu}/u.test(w.raw))) return { kind: 'day', key: day, width: 1 };
  const month = MONTHS[token];
  if (month) {
    const named = /^\p{Lu}/u.test(w.raw) && !w.sentenceStart;
    if (!AMBIGUOUS_MONTHS.has(token) || named || /^\d/.test(next ?? '') || /^\d/.test(words[i - 1]?.raw ?? '')) {
      return { kind: 'month', key: month, width: 1 };
    }
  }
  if (COLOURS.has(token)) return { kind: 'colour', key: token, width: 1 };
  return null;
}

/** Time and number are one kind for comparison ("at 11" and "at 12:00" name the same slot). */
export function comparableKind(kind: ValueKind): 'numeric' | ValueKind {
  return kind === 'time' || kind === 'number' ? 'numeric' : kind;
}
