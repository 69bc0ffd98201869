/**
 * Issue #16 item 8: one validation for remember and import. Every row of an archive is checked
 * with the same field checks `remember` runs (record.ts), so what remember refuses is a row error
 * (`line:<n>`, not written) and what it normalises is normalised the same way.
 */
import { describe, expect, it } from 'vitest';
import { MemoryError, type LocalMemory } from '../src/local.ts';
import { MAX_TAGS, MAX_TAG_LENGTH, MAX_SOURCE_LENGTH } from '../src/core/domain/validate.ts';
import { archiveBytes, headerFor, row } from './helpers/archive.ts';
import { openTestStore } from './helpers/store.ts';

async function snapshot(store: LocalMemory): Promise<string> {
  return JSON.stringify(await store.listRecent({ limit: 10_000, includeSuperseded: true, includeExpired: true }));
}

/** [label, remember options (camelCase) or text, archive meta (snake_case) or text]. */
const BAD: [string, { options?: Record<string, unknown>; text?: string }, Record<string, unknown>, string][] = [
  ['unknown type', { options: { type: 'opinion' } }, { type: 'opinion' }, 'type'],
  ['polarity 1e6', { options: { polarity: 1e6 } }, { polarity: 1e6 }, 'polarity'],
  ['polarity 2', { options: { polarity: 2 } }, { polarity: 2 }, 'polarity'],
  ['a tag with a comma', { options: { tags: ['a,b'] } }, { tags: ['a,b'] }, 'tag'],
  ['a blank tag', { options: { tags: [' \u3000 '] } }, { tags: [' \u3000 '] }, 'tag'],
  ['an empty tag', { options: { tags: [''] } }, { tags: [''] }, 'tag'],
  [`${MAX_TAGS + 1} tags`, { options: { tags: Array.from({ length: MAX_TAGS + 1 }, (_, i) => `t${i}`) } }, { tags: Array.from({ length: MAX_TAGS + 1 }, (_, i) => `t${i}`) }, 'tags'],
  ['a tag over the length limit', { options: { tags: ['x'.repeat(MAX_TAG_LENGTH + 1)] } }, { tags: ['x'.repeat(MAX_TAG_LENGTH + 1)] }, 'tag'],
  ['negative expires_at', { options: { expiresAt: -5 } }, { expires_at: -5 }, 'expiresAt'],
  ['an empty validity interval', { options: { validFrom: 200, validUntil: 100 } }, { valid_from: 200, valid_until: 100 }, 'validUntil'],
  ['a source over the length limit', { options: { source: 's'.repeat(MAX_SOURCE_LENGTH + 1) } }, { source: 's'.repeat(MAX_SOURCE_LENGTH + 1) }, 'source'],
  ['51 surfacesWhen patterns', { options: { surfacesWhen: Array.from({ length: 51 }, (_, i) => `p${i}`) } }, { x_houkai_web: { surfaces_when: Array.from({ length: 51 }, (_, i) => `p${i}`) } }, 'surfacesWhen'],
  ['a blank surfacesWhen pattern', { options: { surfacesWhen: ['  '] } }, { x_houkai_web: { surfaces_when: ['  '] } }, 'surfacesWhen'],
];

describe('import runs the checks remember runs', () => {
  it.each(BAD)('%s: remember refuses it, import reports the row and writes nothing for it', async (_label, remember, meta, field) => {
    const store = await openTestStore();
    await store.remember('an existing memory');
    const before = await snapshot(store);
    const error = await store.remember('fine text', remember.options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryError);
    expect((error as MemoryError).code).toBe('INVALID_ARGUMENT');
    expect(await snapshot(store)).toBe(before);

    const result = await store.importArchive(archiveBytes([row('good-1', 'a good row'), row('bad', 'fine text', meta), row('good-2', 'another good row')]));
    expect(result).toMatchObject({ imported: 2 });
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.where).toBe('line:3');
    expect(result.errors[0]!.message).toContain(field);
    expect(await store.get('bad')).toBeNull();
    expect(await store.get('good-1')).not.toBeNull();
    await store.close();
  });

  it('text: 2 MiB and whitespace-only rows are refused as remember refuses them', async () => {
    const store = await openTestStore();
    const big = 'x'.repeat(2 * 1024 * 1024);
    for (const text of [big, ' \n\t\u3000 ']) {
      await expect(store.remember(text)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    const result = await store.importArchive(archiveBytes([row('big', big), row('blank', ' \n\t\u3000 '), row('ok', 'kept')]));
    expect(result.imported).toBe(1);
    expect(result.errors.map((e) => e.where)).toEqual(['line:2', 'line:3']);
    expect(result.errors[0]!.message).toContain('larger than');
    expect(await store.count()).toBe(1);
    await store.close();
  });

  it('an unknown trust level: remember refuses it, import keeps the memory as untrusted (fail closed)', async () => {
    const store = await openTestStore();
    await expect(store.remember('x', { trust: 'evil' as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'trust' } });
    const result = await store.importArchive(archiveBytes([row('evil', 'wire the funds', { trust: 'evil' }), row('caps', 'shouting', { trust: 'TRUSTED' })]));
    expect(result).toMatchObject({ imported: 2, errors: [] });
    expect((await store.get('evil'))!.trust).toBe('untrusted');
    expect((await store.get('caps'))!.trust).toBe('untrusted');
    await store.close();
  });

  it('what remember normalises, import normalises the same way', async () => {
    const store = await openTestStore();
    const { memory } = await store.remember('  padded text \n', { tags: ['a', 'b', 'a'], importance: 7 });
    await store.importArchive(archiveBytes([row('r', '  padded text \n', { tags: ['a', 'b', 'a'], importance: 7 }), row('low', 'low', { importance: -3 })]));
    const imported = (await store.get('r'))!;
    expect(imported.text).toBe(memory.text);
    expect(imported.tags).toEqual(memory.tags);
    expect(imported.importance).toBe(memory.importance);
    expect((await store.get('low'))!.importance).toBe(0);
    await store.close();
  });

  it('links and ids: bad targets, relations and self-links are row errors; repeated links are dropped', async () => {
    const store = await openTestStore();
    const result = await store.importArchive(
      archiveBytes([
        row('self', 'links to itself', { links: [{ to: 'self', rel: 'related' }] }),
        row('blank-rel', 'blank rel', { links: [{ to: 'x', rel: '  ' }] }),
        row('ctl', 'control in rel', { links: [{ to: 'x', rel: 'a\nb' }] }),
        row('i'.repeat(513), 'id too long'),
        row('dup', 'repeated link', { links: [{ to: 'x', rel: 'related' }, { to: 'x', rel: 'related' }] }),
      ]),
    );
    expect(result.imported).toBe(1);
    expect(result.errors.map((e) => e.where)).toEqual(['line:2', 'line:3', 'line:4', 'line:5']);
    expect((await store.get('dup'))!.links).toEqual([{ to: 'x', rel: 'related' }]);
    await store.close();
  });
});

describe('supersede cycles are refused', () => {
  it('A → B → A in one file: both rows are row errors (neither would ever show); the rest imports', async () => {
    const store = await openTestStore();
    const result = await store.importArchive(
      archiveBytes([row('A', 'alpha', { superseded_by: 'B' }), row('B', 'beta', { superseded_by: 'A' }), row('C', 'gamma', { superseded_by: 'D' }), row('D', 'delta')]),
    );
    expect(result).toMatchObject({ imported: 2 });
    expect(result.errors.map((e) => e.where)).toEqual(['line:2', 'line:3']);
    expect(result.errors[0]!.message).toContain('supersede cycle');
    expect(await store.get('A')).toBeNull();
    expect((await store.get('C'))!.supersededBy).toBe('D');
    expect((await store.recall('delta', { k: 5 })).map((h) => h.memory.id)).toContain('D');
    await store.close();
  });

  it('a memory superseded by itself, and a cycle through stored memories', async () => {
    const store = await openTestStore();
    const x = (await store.remember('x memory')).memory;
    const y = (await store.remember('y memory')).memory;
    await store.supersede(x.id, y.id); // stored: x superseded by y
    const before = await snapshot(store);
    const result = await store.importArchive(
      archiveBytes([row('self', 'itself', { superseded_by: 'self' }), row(y.id, 'y rewritten', { superseded_by: x.id })]),
      { onConflict: 'overwrite' },
    );
    expect(result).toMatchObject({ imported: 0, overwritten: 0 });
    expect(result.errors.map((e) => e.where)).toEqual(['line:2', 'line:3']);
    expect(result.errors[1]!.message).toContain(x.id);
    expect(await snapshot(store)).toBe(before);
    // The same row without the loop overwrites as usual.
    expect(await store.importArchive(archiveBytes([row(y.id, 'y rewritten')]), { onConflict: 'overwrite' })).toMatchObject({ overwritten: 1, errors: [] });
    await store.close();
  });

  it('a dry run reports the same cycle errors', async () => {
    const store = await openTestStore();
    const file = archiveBytes([row('A', 'alpha', { superseded_by: 'B' }), row('B', 'beta', { superseded_by: 'A' })]);
    const dry = await store.importArchive(file, { dryRun: true });
    expect(dry).toMatchObject({ imported: 0 });
    expect(dry.errors).toHaveLength(2);
    expect(await store.count()).toBe(0);
    await store.close();
  });
});

describe('vectors that cannot be searched by meaning are re-embedded, not stored', () => {
  it('zero, 1e-50 and 1e39 vectors and a non-list vector: imported, re-embedded from their text, findable by meaning', async () => {
    const store = await openTestStore();
    const { dim, id } = (await store.stats()).embedder;
    const zeros = new Array<number>(dim).fill(0);
    const tiny = new Array<number>(dim).fill(1e-50);
    const huge = new Array<number>(dim).fill(0.01);
    huge[3] = 1e39;
    const file = archiveBytes(
      [
        row('zero', 'zebras graze on the savanna', {}, zeros),
        row('tiny', 'tiny violins play sad music', {}, tiny),
        row('huge', 'huge glaciers carve valleys', {}, huge),
        { id: 'text', text: 'textual vectors are nonsense', meta: {}, vector: 'abc' },
      ],
      headerFor({ id, dim }),
    );
    const result = await store.importArchive(file);
    expect(result).toMatchObject({ imported: 4, errors: [] });
    for (const [key, query] of [['zero', 'zebras savanna'], ['tiny', 'violins music'], ['huge', 'glaciers valleys'], ['text', 'textual vectors nonsense']]) {
      const hits = await store.recall(query!, { k: 1, touch: false });
      expect(hits[0]?.memory.id, key).toBe(key);
      expect(hits[0]!.score).toBeGreaterThan(0.3);
    }
    await store.close();
  });

  it('a byte flipped inside a vector is reported as corruption, not as a model mismatch', async () => {
    const store = await openTestStore();
    const { dim, id } = (await store.stats()).embedder;
    const vector = Array.from({ length: dim }, (_, i) => (i === 1 ? 25 : 0.5));
    // Level 0 keeps the text verbatim: the ',' before the component 25 becomes 'e' ("0.5e25"),
    // a valid number, so that row's vector is one component short; the CRC no longer matches.
    const bytes = archiveBytes([row('a', 'some text', {}, vector), row('b', 'more text', {}, vector)], headerFor({ id, dim }), 0);
    const text = new TextDecoder('latin1').decode(bytes);
    const at = text.indexOf('[0.5,25,');
    expect(at).toBeGreaterThan(0);
    const flipped = bytes.slice();
    flipped[at + 4] = 'e'.charCodeAt(0);
    for (const regenerateVectors of [false, true]) {
      const error = await store.importArchive(flipped, { regenerateVectors }).catch((e: unknown) => e);
      expect(error, `regenerateVectors: ${regenerateVectors}`).toMatchObject({ code: 'INVALID_ARCHIVE', details: { reason: 'corrupt' } });
    }
    expect(await store.count()).toBe(0);
    // Without the damage, a short vector is still the model mismatch it always was.
    const short = archiveBytes([row('a', 'some text', {}, vector.slice(1))], headerFor({ id, dim }));
    await expect(store.importArchive(short)).rejects.toMatchObject({ code: 'MODEL_MISMATCH', details: { reason: 'vector' } });
    await store.close();
  });
});
