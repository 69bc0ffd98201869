/**
 * The browser SQLite drivers' row codec (src/adapters/sql/value-codec.ts): what IndexedDB's
 * structured clone keeps, it keeps — checked against Node's own structured clone on rows a store
 * writes and on generated values — and what a structured clone refuses, it refuses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeValue, encodeValue, FIELDS } from '../src/adapters/sql/value-codec.ts';
import { packRow } from '../src/core/storage/row-codec.ts';
import { makeMemory } from './helpers/memory.ts';

const roundTrip = (value: unknown): unknown => decodeValue(encodeValue(value));

describe('value codec', () => {
  it('keeps the values a store writes: rows, vectors, journal entries', () => {
    const row = { ...makeMemory('m1', 'Ünïcödé text — with emoji 🧠 and "quotes"', { tags: ['a', 'b'] }), label: 7 };
    const values = [
      row,
      packRow(row as never),
      { label: 3, vector: new Uint16Array([1, 2, 65535]), codes: new Int8Array([-128, 0, 127]), f: new Float32Array([0.1, -2.5, Number.NaN]) },
      { ts: 1_760_000_000.25, op: 'remember', meta: { ids: ['x'], nested: { deep: [1, [2, [3]]] } }, undo: null, gone: undefined },
      [Number.NaN, -0, 0, Infinity, -Infinity, 2 ** 31, -(2 ** 31), 2 ** 53, 1e-300, -1.5],
      { when: new Date(1_700_000_000_123), big: 12345678901234567890n, map: new Map<unknown, unknown>([['k', 1], [2, { v: 'w' }]]), set: new Set(['a', 3]) },
      { buffer: new Uint8Array([9, 8, 7]).buffer, empty: '', emptyArray: [], emptyObject: {} },
    ];
    for (const value of values) expect(roundTrip(value)).toEqual(structuredClone(value));
    // -0 stays -0, an undefined property stays a property, a typed array stays its kind.
    expect(Object.is(roundTrip(-0), -0)).toBe(true);
    expect(Object.keys(roundTrip({ a: undefined }) as object)).toEqual(['a']);
    expect(roundTrip(new Float64Array([1.5]))).toBeInstanceOf(Float64Array);
  });

  it('a typed array over part of a buffer stores only its part, and decodes aligned', () => {
    const whole = new Float32Array([1, 2, 3, 4]);
    const part = new Float32Array(whole.buffer, 4, 2);
    const bytes = encodeValue({ pad: 'x', part });
    const back = decodeValue(bytes) as { part: Float32Array };
    expect(Array.from(back.part)).toEqual([2, 3]);
    expect(back.part.byteOffset % 4).toBe(0);
    expect(back.part.buffer.byteLength).toBe(8);
  });

  it('matches a structured clone on generated values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.float32Array(), fc.string({ unit: 'binary' }), (json, floats, text) => {
        const value = { json, floats, text };
        expect(roundTrip(value)).toEqual(structuredClone(value));
      }),
      { numRuns: 300 },
    );
  });

  it('a key named __proto__ is an own property, not a prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as object;
    const back = roundTrip(value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.keys(back)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('refuses what a structured clone refuses, and bytes it did not write', () => {
    expect(() => encodeValue({ f: () => 1 })).toThrow(expect.objectContaining({ name: 'DataCloneError' }));
    expect(() => encodeValue([Symbol('s')])).toThrow(expect.objectContaining({ name: 'DataCloneError' }));
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => encodeValue(cyclic)).toThrow(expect.objectContaining({ name: 'DataCloneError' }));
    const bytes = encodeValue({ a: 'text' });
    expect(() => decodeValue(bytes.subarray(0, bytes.length - 2))).toThrow(RangeError);
    expect(() => decodeValue(new Uint8Array([99]))).toThrow(RangeError);
    expect(() => decodeValue(new Uint8Array([...encodeValue(1), 0]))).toThrow(RangeError);
  });

  it("writes a store's field names as one-byte codes, and still reads rows written with the names", () => {
    // The codes are the format: this list may only grow at its end.
    expect(FIELDS).toEqual([
      'id', 'text', 'type', 'tags', 'importance', 'createdAt', 'lastAccessed', 'accessCount', 'source', 'links',
      'supersededBy', 'supersededAt', 'polarity', 'expiresAt', 'pinned', 'trust', 'contentHash', 'validFrom', 'validUntil', 'surfacesWhen',
      'label', 'terms', 'termCounts', 'termLength', 'linkTargets', 'pinMoved', 'superseded', 'positive', 'to', 'rel', 'vector', 'gen',
      'seq', 'ts', 'op', 'actor', 'before', 'after', 'created', 'meta', 'group',
    ]);
    expect(new Set(FIELDS).size).toBe(FIELDS.length);
    const entry = { ts: 1_760_000_000.5, op: 'remember', actor: 'lib', id: 'a1', before: null, after: null, created: true, meta: {}, group: 'g', seq: 9 };
    const bytes = encodeValue(entry);
    // The tag, the count, then each field's code and value.
    expect([...bytes.subarray(0, 2)]).toEqual([15, 10]);
    expect(bytes.length).toBeLessThan(60);
    expect(decodeValue(bytes)).toEqual(entry);
    // A row written before the codes (tag 8: each key as a UTF-8 string) reads the same.
    const legacy = new Uint8Array([8, 2, 2, ...new TextEncoder().encode('op'), 6, 1, 0x78, 3, ...new TextEncoder().encode('odd'), 4, 6]);
    expect(decodeValue(legacy)).toEqual({ op: 'x', odd: 3 });
    // Keys outside the list, and one that is the list's name of another, keep themselves.
    expect(roundTrip({ zzz: 1, __proto__x: 2, Id: 3, id: 4 })).toEqual({ zzz: 1, __proto__x: 2, Id: 3, id: 4 });
    // A code past the list (a newer format) is refused, not read as another field.
    expect(() => decodeValue(new Uint8Array([15, 1, FIELDS.length + 1, 1]))).toThrow(/field code/);
  });

  it('small integers take a few bytes; a row is no larger than V8 writes it', async () => {
    expect(encodeValue(5).length).toBe(2);
    expect(encodeValue(1_760_000_000).length).toBeLessThanOrEqual(6);
    const { serialize } = await import('node:v8');
    const row = packRow({ ...makeMemory('m1', 'The staging cluster is deploy-stg-2'), label: 7 } as never);
    expect(encodeValue(row).length).toBeLessThanOrEqual(serialize(row).length);
  });
});
