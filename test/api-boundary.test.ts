/**
 * Issue #16 item 11 (and the in-process half of item 9): arguments are read once, as plain
 * data, at the API boundary (core/domain/boundary.ts). Hostile values get INVALID_ARGUMENT naming the
 * argument, never a TypeError, and the store is unchanged.
 */
import { describe, expect, it } from 'vitest';
import { MemoryError, type LocalMemory } from '../src/local.ts';
import { MAX_TAGS } from '../src/core/domain/validate.ts';
import { archiveBytes, row } from './helpers/archive.ts';
import { openTestStore } from './helpers/store.ts';
import { withinBudgetAsync } from './helpers/linear.ts';

async function state(store: LocalMemory): Promise<string> {
  return JSON.stringify(await store.listRecent({ limit: 10_000, includeSuperseded: true, includeExpired: true }));
}

async function expectInvalid(store: LocalMemory, call: () => Promise<unknown>, field?: string): Promise<MemoryError> {
  const before = await state(store);
  const error = await call().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MemoryError);
  expect((error as MemoryError).code).toBe('INVALID_ARGUMENT');
  if (field) expect(JSON.stringify((error as MemoryError).details)).toContain(field);
  expect(await state(store)).toBe(before);
  return error as MemoryError;
}

describe('codes, not TypeErrors', () => {
  it('a non-function onProgress is INVALID_ARGUMENT on every operation that reports progress', async () => {
    const store = await openTestStore();
    await store.remember('a memory');
    const archive = await store.exportArchive();
    for (const bad of ['yes', 5, {}, null, [() => 0]]) {
      await expectInvalid(store, () => store.rememberMany(['x'], { onProgress: bad as never }), 'onProgress');
      await expectInvalid(store, () => store.reindex({ onProgress: bad as never }), 'onProgress');
      await expectInvalid(store, () => store.importArchive(archive, { onProgress: bad as never }), 'onProgress');
      await expectInvalid(store, () => store.exportArchive({ onProgress: bad as never }), 'onProgress');
    }
    await store.close();
  });

  it('a signal that is not an AbortSignal is INVALID_ARGUMENT', async () => {
    const store = await openTestStore();
    for (const bad of ['stop', 1, { aborted: 'no' }, true]) {
      await expectInvalid(store, () => store.rememberMany(['x'], { signal: bad as never }), 'signal');
      await expectInvalid(store, () => store.recall('x', { signal: bad as never }), 'signal');
    }
    await store.close();
  });

  it('a BigInt importance (or any BigInt or symbol) is INVALID_ARGUMENT', async () => {
    const store = await openTestStore();
    const { memory } = await store.remember('a memory');
    await expectInvalid(store, () => store.remember('x', { importance: 1n as never }), 'importance');
    await expectInvalid(store, () => store.rememberMany([{ text: 'x', importance: 2n as never }]), 'importance');
    await expectInvalid(store, () => store.edit(memory.id, { importance: 3n as never }), 'importance');
    await expectInvalid(store, () => store.recall('x', { k: 5n as never }));
    await expectInvalid(store, () => store.remember('x', { tags: [Symbol('t') as never] }));
    await expectInvalid(store, () => store.get(7n as never));
    await store.close();
  });

  it('a per-item onConflict "raise" in rememberMany is refused, as it is for the whole call', async () => {
    const store = await openTestStore();
    const error = await expectInvalid(store, () => store.rememberMany(['fine', { text: 'also fine', onConflict: 'raise' as never }]), 'onConflict');
    expect(error.message).toContain('remember()');
    await expectInvalid(store, () => store.rememberMany(['fine'], { onConflict: 'raise' as never }));
    expect(await store.rememberMany(['fine', { text: 'warned', onConflict: 'warn' }])).toHaveLength(2);
    await store.close();
  });
});

describe('arguments are read once, as plain data', () => {
  it('a getter that throws, a revoked proxy, a cycle or absurd nesting: INVALID_ARGUMENT', async () => {
    const store = await openTestStore();
    const throwing = Object.defineProperty({}, 'importance', { enumerable: true, get: () => { throw new Error('boom'); } });
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const cyclic: Record<string, unknown> = { tags: ['a'] };
    cyclic.self = cyclic;
    let deep: unknown = 'x';
    for (let i = 0; i < 100; i++) deep = [deep];
    const trapping = new Proxy({}, { ownKeys: () => { throw new TypeError('no keys'); } });
    await expectInvalid(store, () => store.remember('x', throwing));
    await expectInvalid(store, () => store.remember('x', proxy as never));
    await expectInvalid(store, () => store.remember('x', cyclic as never));
    await expectInvalid(store, () => store.rememberMany(deep as never));
    await expectInvalid(store, () => store.recall('x', trapping as never));
    await expectInvalid(store, () => store.rememberMany(new Array(2 ** 32 - 1) as never));
    await store.close();
  });

  it('a getter is read once: the value validated is the value stored', async () => {
    const store = await openTestStore();
    let reads = 0;
    const options = Object.defineProperty({}, 'importance', { enumerable: true, get: () => (reads++ === 0 ? 0.25 : 'not a number') });
    const { memory } = await store.remember('read once', options as never);
    expect(reads).toBe(1);
    expect(memory.importance).toBe(0.25);
    await store.close();
  });

  it('"__proto__" in options is an unknown key, not a prototype: nothing slips past the checks', async () => {
    const store = await openTestStore();
    const options = JSON.parse('{"__proto__": {"type": "opinion", "k": 5000}}') as object;
    await expectInvalid(store, () => store.remember('x', options), '__proto__');
    await expectInvalid(store, () => store.recall('x', options));
    await expectInvalid(store, () => store.rememberMany([JSON.parse('{"text": "x", "__proto__": {"polarity": 9}}')]));
    expect(({} as Record<string, unknown>).k).toBeUndefined();
    await store.close();
  });

  it('a progress callback that throws does not break the operation', async () => {
    const store = await openTestStore();
    const results = await store.rememberMany(['one', 'two', 'three'], { batchSize: 1, onProgress: () => { throw new Error('listener bug'); } });
    expect(results).toHaveLength(3);
    expect(await store.count()).toBe(3);
    const imported = await store.importArchive(archiveBytes([row('r', 'imported')]), { onProgress: () => { throw new Error('bug'); } });
    expect(imported.imported).toBe(1);
    await store.close();
  });
});

describe('tags: capped per memory, de-duplicated in linear time', () => {
  it(`more than ${MAX_TAGS} distinct tags is INVALID_ARGUMENT at once (100k distinct tags took 61 s)`, async () => {
    const store = await openTestStore();
    await withinBudgetAsync('distinct tags', 1_000_000, async (n) => {
      const tags = Array.from({ length: n }, (_, i) => `tag-${i}`);
      if (n <= MAX_TAGS) await store.forget((await store.remember('tagged', { tags })).memory.id);
      else await expect(store.remember('tagged', { tags })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { limit: MAX_TAGS } });
    }, 3000);
    await store.close();
  });

  it('a million repeats of the same tags collapse in linear time', async () => {
    const store = await openTestStore();
    await withinBudgetAsync('repeated tags', 1_000_000, async (n) => {
      const tags = Array.from({ length: n }, (_, i) => `tag-${i % MAX_TAGS}`);
      const { memory } = await store.remember('tagged', { tags });
      expect(memory.tags.length).toBe(Math.min(n, MAX_TAGS));
      await store.forget(memory.id);
    }, 3000);
    await store.close();
  });
});

describe('a scoped view reads arguments once too', () => {
  it('a getter cannot show the scope check one value and the store another', async () => {
    const { scopeMemory } = await import('../src/local.ts');
    const store = await openTestStore();
    const readOnly = scopeMemory(store, { readOnly: true });
    let reads = 0;
    // Read-only may read the durability report but not acknowledge a loss (an admin action).
    const sneaky = Object.defineProperty({}, 'acknowledge', { enumerable: true, get: () => reads++ > 0 });
    await readOnly.durability(sneaky as never);
    expect(reads).toBe(1);
    await expect(readOnly.durability({ acknowledge: true })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await store.close();
  });
});
