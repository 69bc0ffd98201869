/** Small display helpers shared by the screens. */
import { canonicalModelName, isSameModel } from '../../index.ts';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** Unix seconds → a local date and time ("12 Mar 2026, 14:05"); '—' for 0/unset. */
export function when(seconds: number | null | undefined): string {
  if (!seconds) return '—';
  return dateTime.format(new Date(seconds * 1000));
}

export function day(seconds: number): string {
  return dateOnly.format(new Date(seconds * 1000));
}

export function isoOf(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

/** "3 minutes ago", "2 days ago"… relative to now. */
export function ago(seconds: number, now = Date.now() / 1000): string {
  const diff = Math.max(0, now - seconds);
  if (diff < 45) return 'just now';
  const units: [number, string][] = [
    [60, 'minute'],
    [3600, 'hour'],
    [86400, 'day'],
    [86400 * 30, 'month'],
    [86400 * 365, 'year'],
  ];
  let unit = units[0]!;
  for (const u of units) if (diff >= u[0]) unit = u;
  const n = Math.round(diff / unit[0]);
  return `${n} ${unit[1]}${n === 1 ? '' : 's'} ago`;
}

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** Local calendar date as YYYY-MM-DD. */
export function localDate(d = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** `<input type="date">` value (local midnight) → Unix seconds; undefined when empty. */
export function dateInputToSeconds(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const [y, m, d] = value.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d).getTime() / 1000;
}

/** Tags typed as "deploy, #tooling  ops" → ['deploy', 'tooling', 'ops']. */
export function parseTags(input: string): string[] {
  const out: string[] = [];
  for (const raw of input.split(/[\s,]+/)) {
    const t = raw.replace(/^#+/, '').trim();
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}


/** The store's own rule: the three spellings of all-MiniLM-L6-v2 are one model. */
export function sameModel(a: string | null | undefined, b: string | null | undefined): boolean {
  return !!a && !!b && isSameModel(a, b);
}

/** A friendly model name for chips and previews. */
export function modelLabel(id: string | null | undefined): string {
  if (!id) return 'unknown model';
  if (id === 'universal-sentence-encoder-lite') return 'USE-lite';
  return canonicalModelName(id).replace(/^.*\//, '');
}

/** A file-name-safe form of a store name. */
export function fileSafe(name: string): string {
  const dashed = name.replace(/[^\p{L}\p{N}._-]+/gu, '-');
  // Trimmed by a scan (an end-anchored `-+$` is retried from every dash of an inner run: O(n²)).
  let start = 0;
  let end = dashed.length;
  while (start < end && dashed[start] === '-') start++;
  while (end > start && dashed[end - 1] === '-') end--;
  return dashed.slice(start, end) || 'houkai';
}
