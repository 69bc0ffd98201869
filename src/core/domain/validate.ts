/**
 * Input validation for every public operation. Each check throws `MemoryError` with code
 * INVALID_ARGUMENT and names the offending field, before anything is embedded or written.
 *
 * The field checks here are the only ones: `remember`, `rememberMany` and `edit` run them on
 * their options (`checkMemoryInput`), and an archive import runs them on every row
 * (`checkRecord`, in `record.ts`), so a memory that `remember` would refuse cannot arrive by import.
 * Messages quote the rejected value through `describe`, which never throws and stays short.
 */
import { describe } from './describe.ts';
import { invalid } from '../errors.ts';
import { isBlank, pyStrip, utf8Length } from './text.ts';
import { MEMORY_TYPES, TRUST_LEVELS } from '../types.ts';
import type { MemoryInput, MemoryType, Polarity, Trust } from '../types.ts';

/** Largest accepted memory text, in UTF-8 bytes. */
export const MAX_TEXT_BYTES = 1_048_576;
/** Most tags one memory carries (after repeats are dropped). */
export const MAX_TAGS = 100;
/** Longest tag, in UTF-16 code units. */
export const MAX_TAG_LENGTH = 200;
/** Longest `source` (provenance label, often a URL), in UTF-16 code units. */
export const MAX_SOURCE_LENGTH = 8192;
/** Most `surfacesWhen` patterns, and the longest one. */
export const MAX_PATTERNS = 50;
export const MAX_PATTERN_LENGTH = 500;

export function checkText(text: unknown, field = 'text'): string {
  if (typeof text !== 'string') throw invalid(`${field} must be a string — got ${describe(text)}`, { field });
  const stripped = pyStrip(text);
  if (stripped.length === 0) throw invalid(`${field} must not be empty or whitespace`, { field });
  // Cheap bounds first: a UTF-16 unit takes 1 to 3 UTF-8 bytes (a surrogate pair 4 for 2 units).
  if (stripped.length > MAX_TEXT_BYTES || (stripped.length * 3 > MAX_TEXT_BYTES && utf8Length(stripped) > MAX_TEXT_BYTES)) {
    throw invalid(`${field} is larger than ${MAX_TEXT_BYTES} bytes`, { field, limit: MAX_TEXT_BYTES });
  }
  return stripped;
}

export function checkType(type: unknown, field = 'type'): MemoryType {
  if (typeof type !== 'string' || !(MEMORY_TYPES as readonly string[]).includes(type)) {
    throw invalid(`${field} must be one of: ${MEMORY_TYPES.join(', ')} — got ${describe(type)}`, { field });
  }
  return type as MemoryType;
}

export function checkTrust(trust: unknown, field = 'trust'): Trust {
  if (typeof trust !== 'string' || !(TRUST_LEVELS as readonly string[]).includes(trust)) {
    throw invalid(`${field} must be one of: ${TRUST_LEVELS.join(', ')} — got ${describe(trust)}`, { field });
  }
  return trust as Trust;
}

export function checkTag(tag: unknown, field = 'tag'): string {
  if (typeof tag !== 'string') throw invalid(`${field} must be a string — got ${describe(tag)}`, { field });
  if (tag.length > MAX_TAG_LENGTH) {
    throw invalid(`${field} must be at most ${MAX_TAG_LENGTH} characters — got ${tag.length}`, { field, limit: MAX_TAG_LENGTH });
  }
  if (isBlank(tag)) throw invalid(`${field} must not be blank`, { field });
  if (tag.includes(',')) throw invalid(`${field} must not contain a comma — got ${describe(tag)}`, { field });
  return tag;
}

/** Tags keep their order; repeats are dropped (a set: linear); at most {@link MAX_TAGS} remain. */
export function checkTags(tags: unknown, field = 'tags'): string[] {
  if (!Array.isArray(tags)) throw invalid(`${field} must be an array of strings — got ${describe(tags)}`, { field });
  const seen = new Set<string>();
  for (const tag of tags) {
    seen.add(checkTag(tag, field));
    if (seen.size > MAX_TAGS) throw invalid(`${field} holds more than ${MAX_TAGS} distinct tags`, { field, limit: MAX_TAGS });
  }
  return [...seen];
}

/** A finite number, clamped to [0, 1]. */
export function checkImportance(value: unknown, field = 'importance'): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw invalid(`${field} must be a finite number — got ${describe(value)}`, { field });
  }
  return Math.min(1, Math.max(0, value));
}

export function checkPolarity(value: unknown, field = 'polarity'): Polarity {
  if (value !== -1 && value !== 0 && value !== 1) {
    throw invalid(`${field} must be -1, 0 or 1 — got ${describe(value)}`, { field });
  }
  return value;
}

export function checkSource(value: unknown, field = 'source'): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw invalid(`${field} must be a string or null — got ${describe(value)}`, { field });
  if (value.length > MAX_SOURCE_LENGTH) {
    throw invalid(`${field} must be at most ${MAX_SOURCE_LENGTH} characters — got ${value.length}`, { field, limit: MAX_SOURCE_LENGTH });
  }
  return value;
}

/** Who a journal entry is attributed to: 'lib', 'ui', 'agent:<name>'… (1–128 characters, no control characters). */
export function checkActor(value: unknown, field = 'actor'): string {
  // eslint-disable-next-line no-control-regex
  if (typeof value !== 'string' || value.trim() === '' || value.length > 128 || /[\u0000-\u001f\u007f]/.test(value)) {
    throw invalid(`${field} must be a non-empty name of at most 128 characters without control characters`, { field });
  }
  return value;
}

/** A Unix-seconds timestamp ≥ 0 (0 meaning "unset"). */
export function checkTimestamp(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalid(`${field} must be a finite number ≥ 0 (Unix seconds) — got ${describe(value)}`, { field });
  }
  return value;
}

export function checkBoolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw invalid(`${field} must be a boolean — got ${describe(value)}`, { field });
  return value;
}

/** A whole number in [min, max]. */
export function checkInteger(value: unknown, field: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `in [${min}, ${max}]`;
    throw invalid(`${field} must be a whole number ${range} — got ${describe(value)}`, { field });
  }
  return value;
}

export function checkId(id: unknown, field = 'id'): string {
  if (typeof id !== 'string' || id.length === 0) throw invalid(`${field} must be a non-empty string`, { field });
  return id;
}

/**
 * An options object: absent (`{}`), or a plain object. A Date, Map, Blob or class instance is not
 * one (read as options it would pass for `{}` and run the operation with every default).
 */
export function checkObject<T extends object>(value: unknown, field: string): Partial<T> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(`${field} must be an options object — got ${describe(value)}`, { field });
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw invalid(`${field} must be a plain options object`, { field });
  return value as Partial<T>;
}

const INPUT_FIELDS: ReadonlySet<string> = new Set([
  'type', 'tags', 'importance', 'source', 'polarity', 'expiresAt', 'pinned', 'trust', 'validFrom', 'validUntil', 'surfacesWhen',
  'onConflict', 'createdAt',
]);

/** `surfacesWhen`: up to {@link MAX_PATTERNS} non-blank patterns of at most {@link MAX_PATTERN_LENGTH} characters. */
export function checkPatterns(value: unknown, field = 'surfacesWhen'): string[] {
  if (!Array.isArray(value) || value.length > MAX_PATTERNS) {
    throw invalid(`${field} must be an array of at most ${MAX_PATTERNS} patterns`, { field, limit: MAX_PATTERNS });
  }
  const out = new Set<string>();
  for (const p of value) {
    if (typeof p !== 'string' || p.length > MAX_PATTERN_LENGTH || isBlank(p)) {
      throw invalid(`${field} entries must be non-blank strings of at most ${MAX_PATTERN_LENGTH} characters — got ${describe(p)}`, { field });
    }
    out.add(p);
  }
  return [...out];
}

/** Rejects keys a caller probably misspelled, instead of silently ignoring them. */
export function checkKnownKeys(value: object, allowed: ReadonlySet<string>, field: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) throw invalid(`${field} has an unknown field ${describe(key)}`, { field, key });
  }
}

/** Validates the settable fields of a memory; only the keys present are returned. */
/** A memory's input once checked: its time in Unix seconds. */
export type CheckedMemoryInput = Omit<MemoryInput, 'createdAt'> & { createdAt?: number };

export function checkMemoryInput(input: unknown, field = 'options', extra: readonly string[] = []): CheckedMemoryInput {
  const raw = checkObject<MemoryInput>(input, field) as Record<string, unknown>;
  checkKnownKeys(raw, extra.length ? new Set([...INPUT_FIELDS, ...extra]) : INPUT_FIELDS, field);
  const out: CheckedMemoryInput = {};
  if (raw.type !== undefined) out.type = checkType(raw.type);
  if (raw.tags !== undefined) out.tags = checkTags(raw.tags);
  if (raw.importance !== undefined) out.importance = checkImportance(raw.importance);
  if (raw.source !== undefined) out.source = checkSource(raw.source);
  if (raw.polarity !== undefined) out.polarity = checkPolarity(raw.polarity);
  if (raw.expiresAt !== undefined) out.expiresAt = checkTimestamp(raw.expiresAt, 'expiresAt');
  if (raw.pinned !== undefined) out.pinned = checkBoolean(raw.pinned, 'pinned');
  if (raw.trust !== undefined) out.trust = checkTrust(raw.trust);
  if (raw.validFrom !== undefined) out.validFrom = checkTimestamp(raw.validFrom, 'validFrom');
  if (raw.validUntil !== undefined) out.validUntil = checkTimestamp(raw.validUntil, 'validUntil');
  if (raw.surfacesWhen !== undefined) out.surfacesWhen = checkPatterns(raw.surfacesWhen);
  // A Date is taken as what it says (stored, as every time here, in Unix seconds).
  if (raw.createdAt !== undefined) out.createdAt = checkTimestamp(raw.createdAt instanceof Date ? raw.createdAt.getTime() / 1000 : raw.createdAt, 'createdAt');
  if (raw.onConflict !== undefined) {
    const policies = ['ignore', 'warn', 'supersede', 'raise', 'review'];
    if (typeof raw.onConflict !== 'string' || !policies.includes(raw.onConflict)) {
      throw invalid(`onConflict must be one of: ${policies.join(', ')} — got ${describe(raw.onConflict)}`, { field: 'onConflict' });
    }
    out.onConflict = raw.onConflict as MemoryInput['onConflict'];
  }
  return out;
}

/** How far ahead of the store's clock a memory's `createdAt` may lie (a day: time zones, clock skew). */
export const MAX_CREATED_AHEAD = 86_400;

/**
 * A caller's `createdAt` (when the content happened: a chat turn's time, a dated note) must not
 * lie more than {@link MAX_CREATED_AHEAD} seconds after the store's clock; `checkMemoryInput`
 * already refused a negative or non-finite one.
 */
export function checkCreatedAt(createdAt: number | undefined, now: number, field = 'createdAt'): void {
  if (createdAt !== undefined && createdAt > now + MAX_CREATED_AHEAD) {
    // A value a thousand times too large is a time in milliseconds (Date.now()): say so.
    const millis = createdAt / 1000 <= now + MAX_CREATED_AHEAD && createdAt / 1000 > 0 ? ' (Unix seconds, not milliseconds: divide by 1000)' : ' (Unix seconds)';
    throw invalid(`${field} must not be more than a day after the store's clock (${isoTime(now)})${millis} — got ${isoTime(createdAt)}`, { field });
  }
}

/** A Unix time in seconds as ISO 8601, or the number itself when no date has it (beyond ±275,760 years). */
export function isoTime(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? `${seconds} s` : date.toISOString();
}

/** `[validFrom, validUntil)` must be non-empty when both ends are set. */
export function checkValidity(validFrom: number, validUntil: number): void {
  if (validFrom > 0 && validUntil > 0 && validUntil <= validFrom) {
    throw invalid('validUntil must be later than validFrom', { field: 'validUntil' });
  }
}

/** A finite number in [min, max]; throws INVALID_ARGUMENT naming `field` otherwise. */
export function checkNumberInRange(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    const range = max === Number.POSITIVE_INFINITY ? `≥ ${min}` : `in [${min}, ${max}]`;
    throw invalid(`${field} must be a finite number ${range} — got ${JSON.stringify(value)}`, { field });
  }
  return value;
}

/** One of `allowed`; throws INVALID_ARGUMENT naming `field` otherwise. */
export function checkChoice<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalid(`${field} must be one of: ${allowed.join(', ')} — got ${JSON.stringify(value)}`, { field });
  }
  return value as T;
}
