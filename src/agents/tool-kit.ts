/**
 * What every memory tool module shares: JSON-schema builders, snake_case → camelCase argument
 * mapping, time arguments, the full memory record, and the context a tool runs in.
 */
import { invalid } from '../core/errors.ts';
import type { MemoryApi } from '../core/api.ts';
import type { Memory } from '../core/types.ts';
import type { JsonSchema, ObjectSchema, ToolDef } from './dispatch.ts';

export const string = (description: string, extra: Partial<JsonSchema> = {}): JsonSchema => ({ type: 'string', description, ...extra });
export const id = (description: string): JsonSchema => string(description, { minLength: 1 });
export const integer = (description: string, minimum?: number, maximum?: number): JsonSchema => ({
  type: 'integer',
  description,
  ...(minimum === undefined ? {} : { minimum }),
  ...(maximum === undefined ? {} : { maximum }),
});
export const number = (description: string, minimum?: number, maximum?: number): JsonSchema => ({
  type: 'number',
  description,
  ...(minimum === undefined ? {} : { minimum }),
  ...(maximum === undefined ? {} : { maximum }),
});
export const boolean = (description: string): JsonSchema => ({ type: 'boolean', description });
export const choice = (values: readonly string[], description: string): JsonSchema => ({ type: 'string', enum: [...values], description });
export const strings = (description: string, extra: Partial<JsonSchema> = {}): JsonSchema => ({ type: 'array', items: { type: 'string' }, description, ...extra });
export const time = (description: string): JsonSchema => ({ type: ['string', 'number'], description });

export function objectSchema(properties: Record<string, JsonSchema>, required: string[] = []): ObjectSchema {
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

export const TIME_FORMS = 'Unix seconds, an ISO-8601 date or datetime (UTC unless it names a zone), or a relative span such as "7d", "24h", "30m" (that long ago)';

// ---------------------------------------------------------------------------------------------
// Argument mapping
// ---------------------------------------------------------------------------------------------

export type Args = Record<string, unknown>;

/** Copies the present `snake` arguments to their camelCase option names. */
export function rename(args: Args, names: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [from, to] of Object.entries(names)) if (args[from] !== undefined) out[to] = args[from];
  return out;
}

const RELATIVE = /^(\d+(?:\.\d+)?)\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?|d|days?|w|weeks?)$/i;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/**
 * A time argument as Unix seconds: a number, a numeric string, a relative span back from `now`
 * ("7d", "24h", "90m", "30s", "2w"), or an ISO-8601 date/datetime (UTC when it names no zone).
 * @throws MemoryError INVALID_ARGUMENT
 */
export function parseTimeArgument(value: unknown, field: string, now: number): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') throw invalid(`${field} must be a time — got ${JSON.stringify(value)}`, { field });
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const relative = RELATIVE.exec(text);
  if (relative) {
    const unit = relative[2]!.toLowerCase();
    const seconds = UNIT_SECONDS[unit.startsWith('mi') ? 'm' : unit[0]!]!;
    return Math.max(0, now - Number(relative[1]) * seconds);
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const zoned = /[zZ]|[+-]\d{2}:?\d{2}$/.test(text.slice(10)) || text.length === 10;
    const ms = Date.parse(zoned ? text : `${text}Z`);
    if (Number.isFinite(ms)) return ms / 1000;
  }
  throw invalid(`${field} must be Unix seconds, an ISO-8601 date or datetime, or a span like "7d" — got ${JSON.stringify(value)}`, { field });
}

export interface Context {
  client: MemoryApi;
  readOnly: boolean;
  actor: string | undefined;
  now: () => number;
}

// ---------------------------------------------------------------------------------------------
// The full record
// ---------------------------------------------------------------------------------------------

export const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;
export const orNull = (x: number): number | null => (x ? x : null);

/** The full record, as the reference's `get` / `subgraph` serialise a memory (plus the newer fields). */
export function memoryRecord(m: Memory): Record<string, unknown> {
  return {
    id: m.id,
    text: m.text,
    type: m.type,
    tags: m.tags,
    importance: m.importance,
    source: m.source,
    polarity: m.polarity,
    created_at: m.createdAt,
    last_accessed: m.lastAccessed,
    access_count: m.accessCount,
    superseded_by: m.supersededBy || null,
    superseded_at: orNull(m.supersededAt),
    expires_at: orNull(m.expiresAt),
    links: m.links.map((l) => ({ to: l.to, rel: l.rel })),
    pinned: m.pinned,
    trust: m.trust,
    content_hash: m.contentHash,
    valid_from: orNull(m.validFrom),
    valid_until: orNull(m.validUntil),
    surfaces_when: m.surfacesWhen,
  };
}

export type ToolSpec = Omit<ToolDef, 'readOnly'>;

