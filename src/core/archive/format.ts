/**
 * The `.ahkai` line format: AI-Houkai's portable archive (header, rows, meta fields, canonical model names).
 *
 * An archive is gzip-compressed UTF-8 JSONL. Line 1 is the header, every later non-blank line
 * is one memory row `{"id", "text", "meta", "vector"?}` whose `meta` is Python's
 * `Memory.to_dict()` (snake_case keys). This module is pure: it turns one decoded line into a
 * header or a row (applying `Memory.from_dict` defaults exactly) and writes rows byte-for-byte
 * the way Python's `json.dumps(..., separators=(",", ":"))` does.
 */
import { describe } from '../domain/describe.ts';
import { MemoryError } from '../errors.ts';
import { pyStrip } from '../domain/text.ts';
import type { Link, Memory, MemoryType, Polarity, Trust } from '../types.ts';

/** `EXPORT_FORMAT`: the header's `format` marker. */
export const EXPORT_FORMAT = 'ai-houkai/export';
/** `EXPORT_VERSION`: the only format version that exists; readers accept any version <= 1. */
export const EXPORT_VERSION = 1;
/**
 * Key inside `meta` where houkai-web keeps fields AI-Houkai does not know. AI-Houkai's
 * `Memory.from_dict` reads named keys only, so both ports ignore it; it is written last, and
 * only when it has something in it (so rows stay byte-identical to Python's otherwise).
 * Known keys inside it: `surfaces_when` (`Memory.surfacesWhen`).
 */
export const EXTENSION_KEY = 'x_houkai_web';

// ---------------------------------------------------------------------------------------------
// Errors

/**
 * Error codes raised by the archive modules. They are not yet in `ERROR_CODES` (errors.ts), so
 * they are cast until the lead adds them there.
 */
export const ARCHIVE_ERROR_CODES = ['INVALID_ARCHIVE', 'MODEL_MISMATCH', 'IMPORT_CONFLICT'] as const;
export type ArchiveErrorCode = (typeof ARCHIVE_ERROR_CODES)[number];

/**
 * `details.reason` of an `INVALID_ARCHIVE` error. The first six are the reference's distinct
 * header failures; `corrupt` is damaged compressed data (bad CRC, bad deflate
 * data, garbage after a member), `too-long` a line over the reader's limit, and `changed` an
 * archive whose second read differs from the first (two-pass import); `too-large` and
 * `too-many-lines` an archive that decompresses past the reader's bounds (a decompression bomb).
 */
export type ArchiveFailure =
  | 'not-gzip'
  | 'empty'
  | 'not-json'
  | 'bad-format'
  | 'future-version'
  | 'truncated'
  | 'corrupt'
  | 'too-long'
  | 'too-large'
  | 'too-many-lines'
  | 'changed';

export function archiveError(code: ArchiveErrorCode, message: string, details: Record<string, unknown> = {}): MemoryError {
  return new MemoryError(code, message, details);
}

export function invalidArchive(reason: ArchiveFailure, message: string, details: Record<string, unknown> = {}): MemoryError {
  return archiveError('INVALID_ARCHIVE', message, { reason, ...details });
}

// ---------------------------------------------------------------------------------------------
// Model names

const MODEL_PREFIXES = ['sentence-transformers/', 'Xenova/'];

/**
 * The name AI-Houkai's Python store uses for a model: `sentence-transformers/X` and the
 * transformers.js conversion `Xenova/X` are both `X` (e.g. `all-MiniLM-L6-v2`).
 */
export function canonicalModelName(name: string): string {
  for (const prefix of MODEL_PREFIXES) {
    if (name.startsWith(prefix)) return name.slice(prefix.length);
  }
  return name;
}

/**
 * Whether two embedding-model names denote the same model. The reference compares names
 * exactly; the port also treats `all-MiniLM-L6-v2`,
 * `sentence-transformers/all-MiniLM-L6-v2` and `Xenova/all-MiniLM-L6-v2` as one model.
 */
export function isSameModel(a: string, b: string): boolean {
  return canonicalModelName(a) === canonicalModelName(b);
}

// ---------------------------------------------------------------------------------------------
// Python value semantics

/** Python truthiness of a JSON value (`None`, `False`, `0`, `""`, `[]`, `{}` are falsy). */
export function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Python `str(x)` for the JSON scalars an id can hold (used only for collision reporting). */
function pyStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pyFloatRepr(value);
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null || value === undefined) return 'None';
  return describe(value);
}

/**
 * Python's `repr(float)` (what `json.dumps` writes for a float): the shortest round-trip
 * digits, fixed notation with a trailing `.0` for whole values, scientific notation with a
 * two-digit exponent (`1e-05`, `1.5e+16`) when the decimal exponent is < -4 or >= 16, and
 * `NaN`/`Infinity`/`-Infinity` for the non-finite values (json's `allow_nan` spelling).
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const abs = x < 0 ? -x : x;
  if (abs >= 1e-4 && abs < 1e16) {
    // Fast path: here JS and Python both print the shortest digits in fixed notation.
    const fixed = String(x);
    return Number.isInteger(x) ? `${fixed}.0` : fixed;
  }
  // toExponential() without an argument yields the shortest round-trip digits.
  const sci = x.toExponential();
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(sci);
  if (!match) return String(x);
  const sign = match[1] ?? '';
  const digits = (match[2] ?? '') + (match[3] ?? '');
  const exp = Number(match[4]);
  if (exp < -4 || exp >= 16) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp);
    return `${sign}${mantissa}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  const point = exp + 1; // digits before the decimal point
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * Elements of a JS number list that Python spells differently: whole numbers (no `.0` in JS),
 * magnitudes below 1e-4 (JS fixed `0.00001`, Python `1e-05`) and exponent forms (`1e-7` vs
 * `1e-07`; JS switches to exponents only from 1e21, Python from 1e16, which the whole-number
 * case covers).
 */
const JS_ONLY_SPELLING = /(?<=[[,])-?(?:\d+(?=[,\]])|0\.0000\d*|\d(?:\.\d+)?e[+-]\d+)/g;

/**
 * A float32 vector as Python writes `[float(x) for x in v]`. `JSON.stringify` does the bulk
 * (same shortest digits as Python's repr); the few elements spelled differently are redone.
 */
function pyFloatList(vector: Float32Array): string {
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i] as number;
    if ((x === 0 && 1 / x < 0) || !Number.isFinite(x)) {
      // JSON.stringify drops the sign of -0 and writes null for NaN/Infinity.
      return `[${Array.from(vector, (v) => pyFloatRepr(v)).join(',')}]`;
    }
  }
  return JSON.stringify(Array.from(vector)).replace(JS_ONLY_SPELLING, (m) => pyFloatRepr(Number(m)));
}

/** Python's `repr(int)` for a field Python keeps as `int` (`access_count`, `polarity`). */
export function pyIntRepr(x: number): string {
  const n = Math.trunc(x);
  if (!Number.isFinite(n)) return pyFloatRepr(n);
  return Number.isSafeInteger(n) ? String(n === 0 ? 0 : n) : BigInt(n).toString();
}

/**
 * Python `json.dumps` string escaping with `ensure_ascii=True`: `"` and `\` escaped, the short
 * escapes `\n \r \t \b \f`, and every other character outside printable ASCII (U+0020–U+007E)
 * as lowercase `\uXXXX`, astral characters as their UTF-16 surrogate pair.
 */
export function pyJsonString(text: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c) continue;
    if (i > start) out += text.slice(start, i);
    start = i + 1;
    switch (c) {
      case 0x22: out += '\\"'; break;
      case 0x5c: out += '\\\\'; break;
      case 0x0a: out += '\\n'; break;
      case 0x0d: out += '\\r'; break;
      case 0x09: out += '\\t'; break;
      case 0x08: out += '\\b'; break;
      case 0x0c: out += '\\f'; break;
      default: out += `\\u${c.toString(16).padStart(4, '0')}`;
    }
  }
  if (start < text.length) out += text.slice(start);
  return `${out}"`;
}

/** Marks a number Python holds as `float`, so it is written with `.0` when whole. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A JSON value as the Python writer would hold it (`PyFloat` for floats, integers otherwise). */
export type PyJson = null | boolean | number | string | PyFloat | Float32Array | readonly PyJson[] | { readonly [key: string]: PyJson };

/**
 * `json.dumps(value, separators=(",", ":"))` for a Python-typed value. Object keys keep
 * insertion order; plain numbers are written as integers when whole; `Float32Array`s are
 * lists of Python floats (`float(np.float32)`: the exact double of each float32).
 */
export function pyJsonDumps(value: PyJson): string {
  if (value === null) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'string') return pyJsonString(value);
  if (typeof value === 'number') return Number.isInteger(value) ? pyIntRepr(value) : pyFloatRepr(value);
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  if (value instanceof Float32Array) return pyFloatList(value);
  if (Array.isArray(value)) return `[${(value as readonly PyJson[]).map(pyJsonDumps).join(',')}]`;
  const parts: string[] = [];
  for (const [key, item] of Object.entries(value as { readonly [key: string]: PyJson })) {
    parts.push(`${pyJsonString(key)}:${pyJsonDumps(item)}`);
  }
  return `{${parts.join(',')}}`;
}

// ---------------------------------------------------------------------------------------------
// Header

export interface ArchiveHeader {
  format: string;
  /** `int(header.get("version", 0))`: a missing version reads as 0. */
  version: number;
  exportedAt: number | null;
  source: {
    collection: string | null;
    /** The writer's model name, or null when absent/empty (then no model check applies). */
    embeddingModel: string | null;
    /** `int(source.embedding_dim or 0)`. */
    embeddingDim: number;
    count: number | null;
  };
  options: {
    /** `bool(options.get("include_vectors", True))`. */
    includeVectors: boolean;
    includeSuperseded: boolean;
    types: string[] | null;
    tags: string[] | null;
    since: number | null;
  };
  /** `include_vectors` is truthy and `embedding_dim > 0`. */
  fileHasVectors: boolean;
  /** The header object as parsed. */
  raw: Record<string, unknown>;
}

/** Python `int(x)` for a header number; undefined when Python would raise. */
function pyIntOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && /^\s*[+-]?\d+(_\d+)*\s*$/.test(value)) return Number(value.replace(/_/g, ''));
  return undefined;
}

function stringList(value: unknown): string[] | null {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : null;
}

/**
 * Parses and checks line 1, in the reference's order: not JSON → `not-json`;
 * `format != "ai-houkai/export"` (or not an object) → `bad-format`; `version > 1` →
 * `future-version`. A missing version is 0 and accepted; a version Python's `int()` cannot
 * read (null, "abc") is `bad-format` here (Python raises a raw TypeError/ValueError).
 * `line` undefined means the decompressed stream had no bytes: `empty`.
 */
export function parseHeader(line: string | undefined): ArchiveHeader {
  if (line === undefined) throw invalidArchive('empty', 'empty file');
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (error) {
    throw invalidArchive('not-json', `not an ai-houkai export (${(error as Error).message})`);
  }
  if (!isObject(raw) || raw['format'] !== EXPORT_FORMAT) {
    const format = isObject(raw) ? raw['format'] : undefined;
    throw invalidArchive('bad-format', 'missing/bad format header', { format: format === undefined ? null : format });
  }
  const version = 'version' in raw ? pyIntOf(raw['version']) : 0;
  if (version === undefined) {
    throw invalidArchive('bad-format', `unreadable format version ${describe(raw['version'])}`, { version: raw['version'] });
  }
  if (version > EXPORT_VERSION) {
    throw invalidArchive(
      'future-version',
      `written by ai-houkai with version ${pyStr(raw['version'])} > reader version ${EXPORT_VERSION}`,
      { version, readerVersion: EXPORT_VERSION },
    );
  }
  const src = pyTruthy(raw['source']) && isObject(raw['source']) ? raw['source'] : {};
  const opts = pyTruthy(raw['options']) && isObject(raw['options']) ? raw['options'] : {};
  const model = src['embedding_model'];
  const dimRaw = src['embedding_dim'];
  const embeddingDim = pyTruthy(dimRaw) ? (pyIntOf(dimRaw) ?? 0) : 0;
  const includeVectors = 'include_vectors' in opts ? pyTruthy(opts['include_vectors']) : true;
  const count = src['count'];
  const since = opts['since'];
  return {
    format: EXPORT_FORMAT,
    version,
    exportedAt: typeof raw['exported_at'] === 'number' ? raw['exported_at'] : null,
    source: {
      collection: typeof src['collection'] === 'string' ? src['collection'] : null,
      embeddingModel: typeof model === 'string' && model.length > 0 ? model : null,
      embeddingDim,
      count: typeof count === 'number' ? count : null,
    },
    options: {
      includeVectors,
      includeSuperseded: pyTruthy(opts['include_superseded']),
      types: stringList(opts['types']),
      tags: stringList(opts['tags']),
      // Go writes 0 for "no lower bound".
      since: typeof since === 'number' && since !== 0 ? since : null,
    },
    fileHasVectors: includeVectors && embeddingDim > 0,
    raw,
  };
}

/** Header fields the writer fills in. */
export interface HeaderFields {
  exportedAt: number;
  collection: string;
  embeddingModel: string;
  embeddingDim: number;
  count: number;
  includeVectors: boolean;
  includeSuperseded: boolean;
  types: readonly string[] | null;
  tags: readonly string[] | null;
  since: number | null;
}

/** Python's `sorted()` on strings: by code point (JS `sort()` compares UTF-16 units). */
export function sortByCodePoint(values: readonly string[]): string[] {
  return [...values].sort((a, b) => {
    const ia = a[Symbol.iterator]();
    const ib = b[Symbol.iterator]();
    for (;;) {
      const ca = ia.next();
      const cb = ib.next();
      if (ca.done || cb.done) return ca.done ? (cb.done ? 0 : -1) : 1;
      const d = (ca.value.codePointAt(0) as number) - (cb.value.codePointAt(0) as number);
      if (d !== 0) return d;
    }
  });
}

/**
 * The header line as Python writes it (its key order, compact separators): `exported_at` and
 * `since` are floats, `types`/`tags` sorted or null.
 */
export function serializeHeader(fields: HeaderFields): string {
  const types = fields.types && fields.types.length > 0 ? sortByCodePoint(fields.types) : null;
  const tags = fields.tags && fields.tags.length > 0 ? sortByCodePoint(fields.tags) : null;
  return pyJsonDumps({
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: new PyFloat(fields.exportedAt),
    source: {
      collection: fields.collection,
      embedding_model: fields.embeddingModel,
      embedding_dim: Math.trunc(fields.embeddingDim),
      count: Math.trunc(fields.count),
    },
    options: {
      include_vectors: fields.includeVectors,
      include_superseded: fields.includeSuperseded,
      types,
      tags,
      since: fields.since === null ? null : new PyFloat(fields.since),
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Rows: writing

/** `meta` keys in `Memory.to_dict()` order. */
export const META_KEYS = [
  'id',
  'text',
  'type',
  'tags',
  'importance',
  'created_at',
  'last_accessed',
  'access_count',
  'source',
  'links',
  'superseded_by',
  'superseded_at',
  'polarity',
  'expires_at',
  'pinned',
  'trust',
  'content_hash',
  'valid_from',
  'valid_until',
] as const;

export type MetaKey = (typeof META_KEYS)[number];

/** An archive row's `meta` object, ready for `pyJsonDumps`. */
export type ArchiveMeta = { [K in MetaKey]: PyJson } & { [EXTENSION_KEY]?: PyJson };

/**
 * `Memory.to_dict()`: the snake_case meta in Python key order. Python floats (`importance`,
 * `created_at`, `last_accessed`, `superseded_at`, `expires_at`, `valid_from`, `valid_until`)
 * are `PyFloat`; `access_count` and `polarity` are ints. A `""` source is written as `null`
 * (Python reads an empty stored source back as `None`). houkai-web's own fields
 * (`surfacesWhen`, when non-empty) and `extension` are appended under `x_houkai_web`.
 */
export function memoryToMeta(memory: Memory, extension?: { readonly [key: string]: PyJson }): ArchiveMeta {
  const meta: ArchiveMeta = {
    id: memory.id,
    text: memory.text,
    type: memory.type,
    tags: [...memory.tags],
    importance: new PyFloat(memory.importance),
    created_at: new PyFloat(memory.createdAt),
    last_accessed: new PyFloat(memory.lastAccessed),
    access_count: Math.trunc(memory.accessCount),
    source: memory.source ? memory.source : null,
    links: memory.links.map((link) => ({ to: link.to, rel: link.rel })),
    superseded_by: memory.supersededBy,
    superseded_at: new PyFloat(memory.supersededAt),
    polarity: Math.trunc(memory.polarity),
    expires_at: new PyFloat(memory.expiresAt),
    pinned: memory.pinned,
    trust: memory.trust,
    content_hash: memory.contentHash,
    valid_from: new PyFloat(memory.validFrom),
    valid_until: new PyFloat(memory.validUntil),
  };
  const patterns = memory.surfacesWhen ?? [];
  const ours: { [key: string]: PyJson } = { ...extension };
  if (patterns.length > 0) ours['surfaces_when'] = [...patterns];
  if (Object.keys(ours).length > 0) meta[EXTENSION_KEY] = ours;
  return meta;
}

/**
 * One row as the Python writer emits it: `{"id","text","meta","vector"?}` in that key
 * order, compact separators, `ensure_ascii` escaping, floats in Python repr, and the vector (if
 * any) as the doubles of its float32 values. No trailing newline.
 */
export function serializeRow(
  memory: Memory,
  vector?: Float32Array | null,
  extension?: { readonly [key: string]: PyJson },
): string {
  const row: { [key: string]: PyJson } = {
    id: memory.id,
    text: memory.text,
    meta: memoryToMeta(memory, extension),
  };
  if (vector) row['vector'] = vector;
  return pyJsonDumps(row);
}

// ---------------------------------------------------------------------------------------------
// Rows: reading

export interface ParsedRow {
  ok: true;
  lineNo: number;
  /** `row.id or meta.id`. */
  id: string;
  memory: Memory;
  /** The row's vector as float32, when it had a well-formed one. */
  vector?: Float32Array;
  /** Why a present `vector` could not be read (not an array of finite numbers). */
  vectorError?: string;
  /** Why the row's vector was dropped as unusable (the row is embedded from its text instead). */
  vectorDropped?: string;
  /** `meta.x_houkai_web`, when present and an object. */
  extension?: Record<string, unknown>;
}

export interface RowError {
  ok: false;
  lineNo: number;
  /** `line:<n>`. */
  where: string;
  kind: 'bad-json' | 'malformed';
  message: string;
  /**
   * The id the `error` policy's pre-scan uses for this row (`str(row.id or meta.id or "")`),
   * or null when the line is not a JSON object.
   */
  id: string | null;
}

export type RowResult = ParsedRow | RowError;

export interface RowOptions {
  /** Unix seconds used for a missing `created_at`/`last_accessed` (Python: `time.time()`); required for such a row. */
  now?: number;
  /** The line's bytes were not valid UTF-8 (see `ArchiveLine.invalidUtf8`). */
  invalidUtf8?: boolean;
}

class Malformed extends Error {}

function finiteNumber(value: unknown, key: string): number {
  if (value === null) throw new Malformed(`${key} is null`);
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new Malformed(`${key} must be a number — got ${describe(value)}`);
  }
  return value;
}

/** `float(d.get(key, fallback))`: absent → fallback, null → error (Python `float(None)`). */
function requiredFloat(meta: Record<string, unknown>, key: string, fallback: number): number {
  return key in meta ? finiteNumber(meta[key], key) : fallback;
}

/** `float(d.get(key) or 0.0)`: any falsy value → 0. */
function optionalFloat(meta: Record<string, unknown>, key: string): number {
  const value = meta[key];
  return pyTruthy(value) ? finiteNumber(value, key) : 0;
}

/** `str(d.get(key) or "")` for string fields. */
function optionalString(meta: Record<string, unknown>, key: string, fallback: string): string {
  const value = meta[key];
  if (!pyTruthy(value)) return fallback;
  if (typeof value !== 'string') throw new Malformed(`${key} must be a string — got ${describe(value)}`);
  return value;
}

function readTags(value: unknown): string[] {
  if (!pyTruthy(value)) return [];
  if (!Array.isArray(value)) throw new Malformed(`tags must be an array — got ${describe(value)}`);
  for (const tag of value) {
    if (typeof tag !== 'string') throw new Malformed(`tags must be strings — got ${describe(tag)}`);
  }
  return [...(value as string[])];
}

function readLinks(value: unknown): Link[] {
  if (!pyTruthy(value)) return [];
  if (!Array.isArray(value)) throw new Malformed(`links must be an array — got ${describe(value)}`);
  return value.map((link) => {
    if (!isObject(link) || !('to' in link) || !('rel' in link)) {
      throw new Malformed(`each link needs "to" and "rel" — got ${describe(link)}`);
    }
    if (typeof link['to'] !== 'string' || typeof link['rel'] !== 'string') {
      throw new Malformed(`link "to" and "rel" must be strings — got ${describe(link)}`);
    }
    return { to: link['to'], rel: link['rel'] };
  });
}

function readVector(value: unknown): { vector?: Float32Array; vectorError?: string } {
  if (value === undefined || value === null) return {};
  if (!Array.isArray(value)) return { vectorError: 'vector is not an array' };
  const out = new Float32Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const v: unknown = value[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) return { vectorError: `vector[${i}] is not a finite number` };
    out[i] = v;
  }
  return { vector: out };
}

/**
 * Reads one row line, or returns null for a blank line (Python
 * skips lines that are empty after `str.strip()`; they still count toward line numbers).
 *
 * - Bad JSON → `{ ok: false, kind: 'bad-json', message: 'bad json: …' }`.
 * - The row is rebuilt as `Memory.from_dict({**meta, "id": row.id or meta.id,
 *   "text": row.text or meta.text})` with the format's defaults: absent `type` → `semantic`,
 *   `tags`/`links` falsy → `[]`, absent `importance` → 0.5, absent `created_at` /
 *   `last_accessed` → `now`, absent `access_count` → 0 (ints truncate toward zero),
 *   `superseded_by`/`content_hash` falsy → `""`, `superseded_at`/`expires_at`/`valid_*` falsy
 *   → 0, `polarity` falsy → 0, `pinned` → Python truthiness, `trust` falsy → `trusted`,
 *   `source` null or `""` → null. Integer-valued numbers (Go) and floats (Python) are alike.
 * - Malformed (`kind: 'malformed'`), where Python's `from_dict` or the backend write would
 *   fail or where the port is stricter: an explicit null `importance`, `created_at`,
 *   `last_accessed` or `access_count` (Python `float(None)`); `type` null (passed through by
 *   Python, rejected by the backend) or not a string; non-array `tags` (Python would split a
 *   string into characters) or non-string tags; a link without `to`/`rel`; a missing id;
 *   missing or empty text (the port does not store empty memories); a value of the wrong
 *   JSON type where Python would coerce it (numeric strings, `str(5)` ids).
 * - houkai-web's `x_houkai_web.surfaces_when` becomes `surfacesWhen` (default `[]`; not an
 *   array of strings → malformed). AI-Houkai archives never have it.
 * - Type, trust, polarity, tags and link targets are otherwise NOT validated, importance is
 *   not clamped and text is not stripped, exactly as the reference import.
 */
export function rowFromLine(text: string, lineNo: number, options: RowOptions = {}): RowResult | null {
  const where = `line:${lineNo}`;
  if (pyStrip(text).length === 0) return null;
  if (options.invalidUtf8) {
    return { ok: false, lineNo, where, kind: 'bad-json', message: 'bad json: the line is not valid UTF-8', id: null };
  }
  let row: unknown;
  try {
    row = JSON.parse(pyStrip(text));
  } catch (error) {
    return { ok: false, lineNo, where, kind: 'bad-json', message: `bad json: ${(error as Error).message}`, id: null };
  }
  if (!isObject(row)) {
    return { ok: false, lineNo, where, kind: 'malformed', message: 'row is not a JSON object', id: null };
  }
  const rawMeta = row['meta'];
  const metaOk = !pyTruthy(rawMeta) || isObject(rawMeta);
  const meta: Record<string, unknown> = pyTruthy(rawMeta) && isObject(rawMeta) ? rawMeta : {};
  const rawId = pyTruthy(row['id']) ? row['id'] : meta['id'];
  const scanId = pyTruthy(rawId) ? pyStr(rawId) : '';
  const fail = (message: string): RowError => ({ ok: false, lineNo, where, kind: 'malformed', message, id: scanId });
  if (!metaOk) return fail(`meta must be an object — got ${describe(rawMeta)}`);
  if (typeof rawId !== 'string' || rawId.length === 0) {
    return fail(rawId === undefined || rawId === null || rawId === '' ? 'missing id' : `id must be a string — got ${describe(rawId)}`);
  }
  const rawText = pyTruthy(row['text']) ? row['text'] : 'text' in meta ? meta['text'] : '';
  if (typeof rawText !== 'string') return fail(`text must be a string — got ${describe(rawText)}`);
  if (rawText.length === 0) return fail('missing text');

  // The core reads no clock: a row that needs the time of import gets it from the caller.
  const now = options.now ?? Number.NaN;
  try {
    let type: MemoryType = 'semantic';
    if ('type' in meta) {
      const value = meta['type'];
      if (value === null) throw new Malformed('type is null');
      if (typeof value !== 'string') throw new Malformed(`type must be a string — got ${describe(value)}`);
      type = value as MemoryType; // not validated on import
    }
    const accessCount = Math.trunc(requiredFloat(meta, 'access_count', 0)) || 0;
    const polarity = (pyTruthy(meta['polarity']) ? Math.trunc(finiteNumber(meta['polarity'], 'polarity')) : 0) || 0;
    const extensionValue = meta[EXTENSION_KEY];
    const extension = isObject(extensionValue) ? extensionValue : undefined;
    const patterns = extension?.['surfaces_when'];
    if (patterns !== undefined && patterns !== null && (!Array.isArray(patterns) || patterns.some((p) => typeof p !== 'string'))) {
      throw new Malformed(`${EXTENSION_KEY}.surfaces_when must be an array of strings — got ${describe(patterns)}`);
    }
    const sourceValue = meta['source'];
    if (sourceValue !== undefined && sourceValue !== null && typeof sourceValue !== 'string') {
      throw new Malformed(`source must be a string or null — got ${describe(sourceValue)}`);
    }
    const memory: Memory = {
      id: rawId,
      text: rawText,
      type,
      tags: readTags(meta['tags']),
      importance: requiredFloat(meta, 'importance', 0.5),
      createdAt: requiredFloat(meta, 'created_at', now),
      lastAccessed: requiredFloat(meta, 'last_accessed', now),
      accessCount,
      source: typeof sourceValue === 'string' && sourceValue.length > 0 ? sourceValue : null,
      links: readLinks(meta['links']),
      supersededBy: optionalString(meta, 'superseded_by', ''),
      supersededAt: optionalFloat(meta, 'superseded_at'),
      polarity: polarity as Polarity, // not validated on import
      expiresAt: optionalFloat(meta, 'expires_at'),
      pinned: pyTruthy(meta['pinned']),
      trust: optionalString(meta, 'trust', 'trusted') as Trust, // not validated on import
      contentHash: optionalString(meta, 'content_hash', ''),
      validFrom: optionalFloat(meta, 'valid_from'),
      validUntil: optionalFloat(meta, 'valid_until'),
      surfacesWhen: Array.isArray(patterns) ? [...(patterns as string[])] : [],
    };
    if (Number.isNaN(memory.createdAt) || Number.isNaN(memory.lastAccessed)) {
      throw new MemoryError('INVALID_ARGUMENT', `${where} has no created_at or last_accessed, and no import time was given (options.now)`, { field: 'now' });
    }
    const result: ParsedRow = { ok: true, lineNo, id: rawId, memory, ...readVector(row['vector']) };
    if (extension) result.extension = extension;
    return result;
  } catch (error) {
    if (error instanceof Malformed) return fail(error.message);
    throw error;
  }
}
