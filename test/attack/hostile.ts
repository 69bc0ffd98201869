/**
 * Shared pieces of the hardening suite (#16 "Done when": the attack figures re-run): hostile
 * values, a fingerprint of everything a store holds, and a race that turns a hang into a failure.
 */
import { expect } from 'vitest';
import { MemoryError, type LocalMemory } from '../../src/local.ts';

/** A value that is not what a parameter expects, with a name for the report. */
export interface Hostile {
  name: string;
  make(): unknown;
}

function throwingGetter(): object {
  return Object.defineProperty({}, 'x', { enumerable: true, get: () => { throw new TypeError('getter says no'); } });
}
function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}
function trappingProxy(): object {
  return new Proxy({}, { ownKeys: () => { throw new RangeError('ownKeys trap'); }, get: () => { throw new RangeError('get trap'); } });
}
function arrayProxy(): unknown[] {
  return new Proxy([1, 2], { get: (target, key) => { if (key === 'length') throw new Error('length trap'); return Reflect.get(target, key); } });
}
function cyclic(): object {
  const o: Record<string, unknown> = {};
  o.self = o;
  return o;
}
function deep(): unknown {
  let v: unknown = 1;
  for (let i = 0; i < 10_000; i++) v = { v };
  return v;
}

/** The hostile values every parameter is tried with (those a parameter accepts are skipped). */
export const HOSTILE: readonly Hostile[] = [
  { name: 'null', make: () => null },
  { name: 'NaN', make: () => Number.NaN },
  { name: '+Infinity', make: () => Number.POSITIVE_INFINITY },
  { name: '-Infinity', make: () => Number.NEGATIVE_INFINITY },
  { name: '-1', make: () => -1 },
  { name: '0.5', make: () => 0.5 },
  { name: '1e308', make: () => 1e308 },
  { name: '2^53+2', make: () => 2 ** 53 + 2 },
  { name: 'BigInt', make: () => 10n },
  { name: 'symbol', make: () => Symbol('hostile') },
  { name: 'true', make: () => true },
  { name: "''", make: () => '' },
  { name: 'whitespace', make: () => ' \t\n\u3000 ' },
  { name: '2 MiB string', make: () => 'x'.repeat(2 * 1024 * 1024 + 1) },
  { name: "'no-such-choice'", make: () => 'no-such-choice' },
  { name: '{}', make: () => ({}) },
  { name: '[]', make: () => [] },
  { name: '[null]', make: () => [null] },
  { name: '__proto__ key', make: () => JSON.parse('{"__proto__":{"k":5000,"polarity":9,"type":"evil"}}') as unknown },
  { name: 'throwing getter', make: throwingGetter },
  { name: 'revoked proxy', make: revokedProxy },
  { name: 'trapping proxy', make: trappingProxy },
  { name: 'array proxy', make: arrayProxy },
  { name: 'cycle', make: cyclic },
  { name: '10,000 levels deep', make: deep },
  { name: 'function', make: () => () => 0 },
  { name: 'Date', make: () => new Date(0) },
  { name: 'Map', make: () => new Map([['k', 1]]) },
];

/** Everything a rejected call must leave as it was: memories, vectors, trash, journal, review queue. */
export async function fingerprint(store: LocalMemory): Promise<string> {
  const memories = await store.listRecent({ limit: 10_000, includeSuperseded: true, includeExpired: true });
  const trash = await store.trashList();
  const journal = await store.journalTail(1);
  const pending = await store.listPendingConflicts();
  const stats = await store.stats();
  return JSON.stringify([memories, trash, journal[0]?.seq ?? 0, pending.map((p) => p.id), stats.count, stats.index.size]);
}

/** Rejects when `promise` has not settled after `ms` (a hang is a failure, not a stuck run). */
export async function settleWithin<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The outcome of a call that must fail: the MemoryError, or a description of what happened instead. */
export async function failure(call: () => Promise<unknown>, label: string, ms = 20_000): Promise<MemoryError | string> {
  try {
    const value = await settleWithin(Promise.resolve().then(call), ms, label);
    return `resolved with ${describeValue(value)}`;
  } catch (error) {
    if (error instanceof MemoryError) return error;
    return `threw ${(error as Error)?.name ?? typeof error}: ${(error as Error)?.message ?? String(error)}`;
  }
}

function describeValue(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.slice(0, 120);
  } catch {
    return typeof value;
  }
}

/** Asserts every outcome is a MemoryError with the expected code; lists every one that is not. */
export function expectAllCodes(outcomes: { label: string; outcome: MemoryError | string; expected: readonly string[] }[]): void {
  const wrong = outcomes
    .filter(({ outcome, expected }) => typeof outcome === 'string' || !expected.includes(outcome.code))
    .map(({ label, outcome, expected }) => `${label}: expected ${expected.join('|')}, ${typeof outcome === 'string' ? outcome : `got ${outcome.code}: ${outcome.message}`}`);
  expect(wrong).toEqual([]);
}
