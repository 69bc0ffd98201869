import { describe, expect, it } from 'vitest';
import { problemOf, quote } from '../src/app/lib/errors.ts';
import { MemoryError } from '../src/core/errors.ts';
import { openTestStore } from './helpers/store.ts';

describe('errors in a person’s words', () => {
  it('explains a text over 1 MiB by its field, keeping the code apart', async () => {
    const store = await openTestStore();
    const error = await store.remember('x'.repeat(1_100_000)).catch((e: unknown) => e);
    const p = problemOf(error);
    expect(p).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'text' });
    expect(p.message).toMatch(/^This memory is too long to keep: a memory can hold at most 1 MB of text\./);
    expect(p.message).not.toMatch(/1048576|INVALID_ARGUMENT/);
    await store.close();
  });

  it('names stores and memories, never an id', () => {
    expect(problemOf(new MemoryError('STORE_IN_USE', 'x', { name: 'work' })).message).toBe('“work” is open in another tab or by an agent. Close it there, then try again.');
    expect(problemOf(new MemoryError('STORE_EXISTS', 'x', { name: 'a:b' })).message).toContain('There is already a store named “a:b”');
    expect(quote('  The staging   cluster is deploy-stg-2.  ')).toBe('“The staging cluster is deploy-stg-2.”');
    expect(quote('x'.repeat(100), 20)).toBe(`“${'x'.repeat(19)}…”`);
  });
});
