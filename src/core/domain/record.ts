/**
 * A whole stored memory, checked field by field with the same checks `remember` runs on its
 * options (validate.ts), plus the fields only an archive can set (id, links, supersession,
 * access tracking). An import runs every row through {@link checkRecord}, so what `remember`
 * refuses (an unknown type or trust, polarity 1e6, a tag with a comma, 2 MiB of text, blank
 * text) is refused on import too; what `remember` normalises (surrounding whitespace, repeated
 * tags, importance outside [0, 1]) is normalised the same way. One difference, fail-closed: an
 * unknown trust level is stored as `untrusted` (see `storedTrust`).
 */
import { describe } from './describe.ts';
import { invalid } from '../errors.ts';
import { checkRel } from './graph.ts';
import { TRUST_LEVELS, type Link, type Memory, type Trust } from '../types.ts';
import {
  checkBoolean,
  checkImportance,
  checkInteger,
  checkPatterns,
  checkPolarity,
  checkSource,
  checkTags,
  checkText,
  checkTimestamp,
  checkType,
  checkValidity,
} from './validate.ts';

/** Longest id an imported memory (or a link or supersession pointing at one) may have. */
export const MAX_ID_LENGTH = 512;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** An id a stored memory may carry: a non-empty string of at most {@link MAX_ID_LENGTH} characters, no control characters. */
export function checkRecordId(value: unknown, field = 'id'): string {
  if (typeof value !== 'string' || value.length === 0) throw invalid(`${field} must be a non-empty string — got ${describe(value)}`, { field });
  if (value.length > MAX_ID_LENGTH) throw invalid(`${field} must be at most ${MAX_ID_LENGTH} characters — got ${value.length}`, { field, limit: MAX_ID_LENGTH });
  if (CONTROL.test(value)) throw invalid(`${field} must not contain control characters — got ${describe(value)}`, { field });
  return value;
}

/**
 * The trust of a stored row. `remember` refuses a level it does not know (a caller's mistake);
 * a row from a file is foreign data, so an unknown level (`"evil"`, or one a newer writer
 * invented) is kept at the least trusted level rather than dropped: it can never rank or pass
 * `minTrust` above `untrusted`, and the memory is not lost.
 */
function storedTrust(value: unknown): Trust {
  return typeof value === 'string' && (TRUST_LEVELS as readonly string[]).includes(value) ? (value as Trust) : 'untrusted';
}

/** Links checked (target id, relation), without links to the memory itself, repeats dropped. */
function checkLinks(links: unknown, selfId: string): Link[] {
  if (!Array.isArray(links)) throw invalid(`links must be an array — got ${describe(links)}`, { field: 'links' });
  const seen = new Set<string>();
  const out: Link[] = [];
  links.forEach((link: unknown, i) => {
    if (link === null || typeof link !== 'object') throw invalid(`links[${i}] must be an object with "to" and "rel"`, { field: 'links' });
    const to = checkRecordId((link as Link).to, `links[${i}].to`);
    const rel = checkRel((link as Link).rel, `links[${i}].rel`);
    if (to === selfId) throw invalid(`links[${i}] links the memory to itself`, { field: 'links' });
    const key = `${rel}\u0000${to}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ to, rel });
  });
  return out;
}

/**
 * Validates and normalises every field of a memory that is about to be stored as it is (an
 * archive row). Returns a new record; the content hash is left to the caller (it is async).
 * @throws MemoryError INVALID_ARGUMENT naming the first bad field (`details.field`)
 */
export function checkRecord(memory: Memory): Memory {
  const id = checkRecordId(memory.id);
  const supersededBy = memory.supersededBy === '' ? '' : checkRecordId(memory.supersededBy, 'supersededBy');
  const record: Memory = {
    id,
    text: checkText(memory.text),
    type: checkType(memory.type),
    tags: checkTags(memory.tags),
    importance: checkImportance(memory.importance),
    createdAt: checkTimestamp(memory.createdAt, 'createdAt'),
    lastAccessed: checkTimestamp(memory.lastAccessed, 'lastAccessed'),
    accessCount: checkInteger(memory.accessCount, 'accessCount', 0),
    source: checkSource(memory.source),
    links: checkLinks(memory.links, id),
    supersededBy,
    supersededAt: checkTimestamp(memory.supersededAt, 'supersededAt'),
    polarity: checkPolarity(memory.polarity),
    expiresAt: checkTimestamp(memory.expiresAt, 'expiresAt'),
    pinned: checkBoolean(memory.pinned, 'pinned'),
    trust: storedTrust(memory.trust),
    contentHash: memory.contentHash,
    validFrom: checkTimestamp(memory.validFrom, 'validFrom'),
    validUntil: checkTimestamp(memory.validUntil, 'validUntil'),
    surfacesWhen: checkPatterns(memory.surfacesWhen),
  };
  if (supersededBy === id) throw invalid('supersededBy names the memory itself (a supersede cycle)', { field: 'supersededBy' });
  checkValidity(record.validFrom, record.validUntil);
  return record;
}

/** Norms outside this range are not an embedding's (a zero vector has no direction; float32 squares overflow past ~1e19). */
export const MIN_VECTOR_NORM = 1e-6;
export const MAX_VECTOR_NORM = 1e6;

/**
 * Why a stored vector cannot be searched by meaning, or null when it can: a component that is
 * not a finite float32 (1e39 overflows to Infinity), or a norm outside
 * [{@link MIN_VECTOR_NORM}, {@link MAX_VECTOR_NORM}] (a zero vector, or 1e-50 components that
 * underflow to zero, never match anything by cosine).
 */
export function vectorProblem(vector: Float32Array): string | null {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i]!;
    if (!Number.isFinite(x)) return `component ${i} is not a finite float32`;
    sum += x * x;
  }
  const norm = Math.sqrt(sum);
  if (norm < MIN_VECTOR_NORM) return 'the vector is zero (or too small to have a direction)';
  if (norm > MAX_VECTOR_NORM) return `the vector's norm ${norm.toExponential(2)} is too large`;
  return null;
}
