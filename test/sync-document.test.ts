import { describe, expect, it } from 'vitest';
import { MemoryError } from '../src/core/errors.ts';
import { decodeVector, docId, encodeVector, fromDocument, memoryIdOf, toDocument } from '../src/core/sync/document.ts';
import { mergeRevisions } from '../src/core/sync/merge.ts';
import { makeMemory } from './helpers/memory.ts';
import { mulberry32 } from './helpers/prng.ts';

const MODEL = 'Xenova/all-MiniLM-L6-v2';
const memory = makeMemory('_odd id/1', 'We lint with ESLint', {
  tags: ['tools'],
  links: [{ to: 'x', rel: 'related' }],
  lastAccessed: 5,
  accessCount: 9,
  surfacesWhen: ['*.ts'],
  pinned: true,
});

describe('a memory as a CouchDB document', () => {
  it('carries every field but access tracking, and the vector with its model, through JSON', () => {
    const vector = Float32Array.from({ length: 8 }, (_, i) => Math.sin(i) / 3);
    const doc = JSON.parse(JSON.stringify(toDocument(memory, vector, MODEL)));
    expect(doc._id).toBe('m:_odd id/1');
    expect(doc.memory).not.toHaveProperty('lastAccessed');
    expect(doc.memory).not.toHaveProperty('accessCount');
    const read = fromDocument(doc, MODEL, 8);
    const { lastAccessed: _l, accessCount: _a, ...synced } = memory;
    expect(read.memory).toEqual(synced);
    expect([...read.vector!]).toEqual([...vector]);
  });

  it('a vector from another model (or dimension) is not used: the text is re-embedded', () => {
    const doc = toDocument(memory, new Float32Array(8).fill(0.5), 'universal-sentence-encoder-lite');
    expect(fromDocument(doc, MODEL, 8).vector).toBeNull();
    expect(fromDocument(toDocument(memory, new Float32Array(8).fill(0.5), MODEL), MODEL, 384).vector).toBeNull();
  });

  it('vectors are little-endian float32 bytes in standard base64 (any engine reads them)', () => {
    const random = mulberry32(7);
    for (const n of [0, 1, 2, 3, 5, 384]) {
      const v = Float32Array.from({ length: n }, () => random() * 2 - 1);
      const text = encodeVector(v);
      expect(text).toBe(Buffer.from(v.buffer).toString('base64'));
      expect(decodeVector(text, n)).toEqual(v);
    }
    expect(decodeVector('AAAA', 2)).toBeNull();
    expect(decodeVector('not base64!', 1)).toBeNull();
  });

  it('ids: a prefix CouchDB accepts for any memory id', () => {
    expect(docId('_design')).toBe('m:_design');
    expect(memoryIdOf('m:abc')).toBe('abc');
    expect(memoryIdOf('_design/x')).toBeNull();
    expect(memoryIdOf('m:')).toBeNull();
  });

  it.each([
    ['not an object', null],
    ['its _id does not start', { _id: 'x' }],
    ['not a memory document', { _id: 'm:a', kind: 'other' }],
    ['layout version 2 is newer', { _id: 'm:a', kind: 'houkai-memory', v: 2 }],
    ['the memory id differs', { _id: 'm:a', kind: 'houkai-memory', v: 1, memory: { ...memory, id: 'b' } }],
    ['type must be one of', { _id: 'm:a', kind: 'houkai-memory', v: 1, memory: { ...memory, id: 'a', type: 'nonsense' } }],
    ['text', { _id: 'm:a', kind: 'houkai-memory', v: 1, memory: { ...memory, id: 'a', text: '' } }],
    ['links[0]', { _id: 'm:a', kind: 'houkai-memory', v: 1, memory: { ...memory, id: 'a', links: [{ to: 1 }] } }],
    ['does not decode', { ...toDocument({ ...memory, id: 'a' }, new Float32Array(4), MODEL), vector: { model: MODEL, dim: 8, f32: 'AAAA' } }],
  ])('a document that is not a memory is refused with its reason: %s', (reason, doc) => {
    let error: unknown;
    try {
      fromDocument(doc, MODEL, 8);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MemoryError);
    expect((error as MemoryError).code).toBe('INVALID_ARGUMENT');
    expect((error as MemoryError).message).toContain(reason);
  });
});

describe('concurrent edits of one memory', () => {
  const { lastAccessed: _l, accessCount: _a, ...base } = makeMemory('a', 'Use pnpm', { tags: ['tools'], links: [{ to: 'b', rel: 'related' }] });

  it('tags and links merge as unions; the winner keeps its text and the rest', () => {
    const winner = { ...base, tags: ['tools', 'js'], importance: 0.9 };
    const loser = { ...base, tags: ['tools', 'build'], links: [...base.links, { to: 'c', rel: 'supports' }], importance: 0.1 };
    const { merged, review } = mergeRevisions(winner, [loser]);
    expect(merged!.tags).toEqual(['tools', 'js', 'build']);
    expect(merged!.links).toEqual([{ to: 'b', rel: 'related' }, { to: 'c', rel: 'supports' }]);
    expect(merged!.importance).toBe(0.9);
    expect(review).toEqual([]);
  });

  it('the union stops at 100 tags (the winner\'s first); a loser whose tags did not fit waits in review', () => {
    const winner = { ...base, tags: Array.from({ length: 61 }, (_, i) => `a${i}`) };
    const loser = { ...base, tags: Array.from({ length: 61 }, (_, i) => `b${i}`) };
    const { merged, review } = mergeRevisions(winner, [loser]);
    expect(merged!.tags).toHaveLength(100);
    expect(merged!.tags.slice(0, 61)).toEqual(winner.tags);
    expect(review).toEqual([loser]);
  });

  it('a losing text is not lost: it waits in review, once per distinct text', () => {
    const winner = { ...base, text: 'Use pnpm, not npm' };
    const a = { ...base, text: 'Use npm, not pnpm' };
    const { merged, review } = mergeRevisions(winner, [a, { ...a }, { ...base, text: winner.text }]);
    expect(merged).toBeNull();
    expect(review.map((r) => r.text)).toEqual(['Use npm, not pnpm']);
  });

  it('the same inputs give the same merge on every device', () => {
    const winner = { ...base, tags: ['x'] };
    const losers = [{ ...base, tags: ['y'] }, { ...base, tags: ['z'], text: 'other' }];
    expect(mergeRevisions(winner, losers)).toEqual(mergeRevisions(structuredClone(winner), structuredClone(losers)));
  });
});
