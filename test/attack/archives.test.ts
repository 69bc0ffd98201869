/**
 * Hardening suite, hostile archives (#16: "120 hostile archives" re-run). Damaged containers
 * (not gzip, truncated at every step, a byte flipped at every step of the compressed data and
 * trailer), hostile headers, decompression bombs under per-call bounds, and files with one
 * hostile row (every field of a row given what `remember` refuses, `__proto__` and inherited
 * keys, broken UTF-8, unusable vectors, supersede cycles). A damaged or hostile file fails with
 * INVALID_ARCHIVE / MODEL_MISMATCH / IMPORT_CONFLICT and leaves the store as it was; a hostile
 * row is a `line:2` row error, not written, while the file's good row is imported.
 */
import { gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { MemoryError, type LocalMemory } from '../../src/local.ts';
import { archiveBytes, archiveText, headerFor, HEADER, row } from '../helpers/archive.ts';
import { openTestStore } from '../helpers/store.ts';
import { failure, fingerprint } from './hostile.ts';

const encoder = new TextEncoder();
const gz = (text: string | Uint8Array): Uint8Array => gzipSync(typeof text === 'string' ? encoder.encode(text) : text);
const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

interface FileCase {
  label: string;
  bytes: () => Uint8Array;
  options?: Record<string, unknown>;
  /** Expected code, and `details.reason` when it matters. */
  code: 'INVALID_ARCHIVE' | 'MODEL_MISMATCH' | 'IMPORT_CONFLICT';
  reasons?: readonly string[];
}

interface RowCase {
  label: string;
  /** The hostile row's line (without the trailing newline), written as it is. */
  line: string | Uint8Array;
  /** What becomes of the row: a `line:2` error naming `field`, or stored as the check says. */
  expect: { error: string } | { stored: (store: LocalMemory) => Promise<void> };
}

function fileCases(dim: number, model: string): FileCase[] {
  const good = (): Uint8Array => archiveBytes([row('g1', 'first good row'), row('g2', 'second good row'), row('g3', 'third good row')]);
  const sample = good();
  const cases: FileCase[] = [
    { label: 'empty file', bytes: () => new Uint8Array(0), code: 'INVALID_ARCHIVE', reasons: ['empty'] },
    { label: 'plain JSON lines, not gzipped', bytes: () => encoder.encode(archiveText([row('a', 'x')])), code: 'INVALID_ARCHIVE', reasons: ['not-gzip'] },
    { label: 'a PNG signature', bytes: () => new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), code: 'INVALID_ARCHIVE', reasons: ['not-gzip'] },
    { label: 'a zip file', bytes: () => new Uint8Array([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0, 8, 0]), code: 'INVALID_ARCHIVE', reasons: ['not-gzip'] },
    { label: 'gzip magic with method 0', bytes: () => new Uint8Array([0x1f, 0x8b, 0x00, 0, 0, 0, 0, 0, 0, 3]), code: 'INVALID_ARCHIVE', reasons: ['not-gzip'] },
    { label: 'gzip magic only', bytes: () => new Uint8Array([0x1f, 0x8b]), code: 'INVALID_ARCHIVE', reasons: ['truncated'] },
    { label: '1 MiB of random bytes', bytes: () => Uint8Array.from({ length: 1 << 20 }, (_, i) => (i * 2654435761) >>> 24), code: 'INVALID_ARCHIVE', reasons: ['not-gzip'] },
    { label: 'a good member then junk', bytes: () => concat(sample, encoder.encode('junk after the member')), code: 'INVALID_ARCHIVE', reasons: ['corrupt'] },
    { label: 'a good member then zero padding', bytes: () => concat(sample, new Uint8Array(64)), code: 'INVALID_ARCHIVE', reasons: ['corrupt'] },
    { label: 'gzip of nothing', bytes: () => gz(''), code: 'INVALID_ARCHIVE', reasons: ['empty'] },
    // Headers
    { label: 'header not JSON', bytes: () => gz('{"format": \n'), code: 'INVALID_ARCHIVE', reasons: ['not-json'] },
    { label: 'header a JSON array', bytes: () => gz('["ai-houkai/export"]\n'), code: 'INVALID_ARCHIVE', reasons: ['bad-format'] },
    { label: 'header with a BOM', bytes: () => gz(`\ufeff${JSON.stringify(HEADER)}\n`), code: 'INVALID_ARCHIVE', reasons: ['not-json'] },
    { label: 'header of invalid UTF-8', bytes: () => concat(gz(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d, 0x0a]))), code: 'INVALID_ARCHIVE', reasons: ['not-json'] },
    { label: 'wrong format name', bytes: () => gz('{"format":"ai-houkai/backup","version":1}\n'), code: 'INVALID_ARCHIVE', reasons: ['bad-format'] },
    { label: 'format on the prototype', bytes: () => gz('{"__proto__":{"format":"ai-houkai/export"},"version":1}\n'), code: 'INVALID_ARCHIVE', reasons: ['bad-format'] },
    { label: 'future version', bytes: () => gz('{"format":"ai-houkai/export","version":2}\n'), code: 'INVALID_ARCHIVE', reasons: ['future-version'] },
    { label: 'version 1e308', bytes: () => gz('{"format":"ai-houkai/export","version":1e308}\n'), code: 'INVALID_ARCHIVE', reasons: ['future-version'] },
    { label: 'version "abc"', bytes: () => gz('{"format":"ai-houkai/export","version":"abc"}\n'), code: 'INVALID_ARCHIVE', reasons: ['bad-format'] },
    { label: 'version null', bytes: () => gz('{"format":"ai-houkai/export","version":null}\n'), code: 'INVALID_ARCHIVE', reasons: ['bad-format'] },
    { label: 'blank first line', bytes: () => gz(`\n${JSON.stringify(HEADER)}\n`), code: 'INVALID_ARCHIVE', reasons: ['not-json'] },
    // Bombs, under per-call bounds (the default bounds: archive-bombs.test.ts)
    { label: 'newlines past maxLines', bytes: () => gz(`${JSON.stringify(HEADER)}\n${'\n'.repeat(5000)}`), options: { maxLines: 1000 }, code: 'INVALID_ARCHIVE', reasons: ['too-many-lines'] },
    { label: 'a repeated row past maxLines', bytes: () => gz(`${JSON.stringify(HEADER)}\n${`${JSON.stringify(row('same', 'again'))}\n`.repeat(5000)}`), options: { maxLines: 1000 }, code: 'INVALID_ARCHIVE', reasons: ['too-many-lines'] },
    { label: 'output past maxDecompressedBytes', bytes: () => gz(`${JSON.stringify(HEADER)}\n${'x'.repeat(3 << 20)}\n`), options: { maxDecompressedBytes: 1 << 20 }, code: 'INVALID_ARCHIVE', reasons: ['too-large'] },
    { label: 'a line of 65 MiB', bytes: () => gz(concat(encoder.encode(`${JSON.stringify(HEADER)}\n`), new Uint8Array(65 << 20).fill(0x78))), code: 'INVALID_ARCHIVE', reasons: ['too-long'] },
    { label: 'repeated members past maxLines', bytes: () => concat(gz(`${JSON.stringify(HEADER)}\n`), ...Array.from({ length: 50 }, () => gz('\n'.repeat(100)))), options: { maxLines: 1000 }, code: 'INVALID_ARCHIVE', reasons: ['too-many-lines'] },
    // Vectors from another model, and collisions under 'error'
    { label: 'another model', bytes: () => archiveBytes([row('m', 'x', {}, [1, 0])], headerFor({ id: 'nomic-embed-text', dim })), code: 'MODEL_MISMATCH', reasons: ['model'] },
    { label: 'another dimension', bytes: () => archiveBytes([row('m', 'x', {}, [1, 0])], headerFor({ id: model, dim: dim + 1 })), code: 'MODEL_MISMATCH', reasons: ['dimension'] },
    { label: 'a row vector of the wrong length', bytes: () => archiveBytes([row('m', 'x', {}, [1, 0, 0])], headerFor({ id: model, dim })), code: 'MODEL_MISMATCH', reasons: ['vector'] },
    { label: "duplicate ids under 'error'", bytes: () => archiveBytes([row('d', 'one'), row('d', 'two')]), options: { onConflict: 'error' }, code: 'IMPORT_CONFLICT' },
    { label: "a stored id under 'error'", bytes: () => archiveBytes([row('stored-id', 'again')]), options: { onConflict: 'error' }, code: 'IMPORT_CONFLICT' },
  ];
  // Truncated at every 1/24th of the file (the header member included).
  for (let k = 1; k < 24; k++) {
    const cut = Math.floor((sample.length * k) / 24);
    cases.push({ label: `truncated at byte ${cut} of ${sample.length}`, bytes: () => sample.subarray(0, cut), code: 'INVALID_ARCHIVE', reasons: ['truncated', 'not-gzip', 'corrupt'] });
  }
  // A byte flipped at every step of the compressed data and the trailer (the 10-byte header
  // carries no checksum: a flipped mtime is not damage).
  const bodyStart = 10;
  const steps = 48;
  for (let k = 0; k < steps; k++) {
    const at = bodyStart + Math.floor(((sample.length - bodyStart) * k) / steps);
    cases.push({
      label: `byte ${at} of ${sample.length} flipped`,
      bytes: () => {
        const copy = sample.slice();
        copy[at] = copy[at]! ^ 0xff;
        return copy;
      },
      code: 'INVALID_ARCHIVE',
      reasons: ['corrupt', 'truncated'],
    });
  }
  return cases;
}

const BAD_META: [string, Record<string, unknown>, string][] = [
  ['type unknown', { type: 'opinion' }, 'type'],
  ['type null', { type: null }, 'type'],
  ['type a number', { type: 3 }, 'type'],
  ['tags a string', { tags: 'a,b' }, 'tags'],
  ['a tag with a comma', { tags: ['a,b'] }, 'tag'],
  ['a blank tag', { tags: ['  '] }, 'tag'],
  ['a non-string tag', { tags: [1] }, 'tags'],
  ['101 tags', { tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }, 'tags'],
  ['a 201-character tag', { tags: ['t'.repeat(201)] }, 'tag'],
  ['importance a string', { importance: '0.5' }, 'importance'],
  ['importance null', { importance: null }, 'importance'],
  ['polarity 1e6', { polarity: 1e6 }, 'polarity'],
  ['polarity -7', { polarity: -7 }, 'polarity'],
  ['trust a number', { trust: 1 }, 'trust'],
  ['expires_at negative', { expires_at: -1 }, 'expiresAt'],
  ['expires_at a string', { expires_at: 'soon' }, 'expires_at'],
  ['created_at null', { created_at: null }, 'created_at'],
  ['created_at negative', { created_at: -5 }, 'createdAt'],
  ['last_accessed a string', { last_accessed: 'now' }, 'last_accessed'],
  ['access_count negative', { access_count: -3 }, 'accessCount'],
  ['access_count 1e300', { access_count: 1e300 }, 'accessCount'],
  ['superseded_at negative', { superseded_at: -2 }, 'supersededAt'],
  ['valid_until before valid_from', { valid_from: 200, valid_until: 100 }, 'validUntil'],
  ['source a number', { source: 7 }, 'source'],
  ['source of 9,000 characters', { source: 's'.repeat(9000) }, 'source'],
  ['links a string', { links: 'x' }, 'links'],
  ['a link without rel', { links: [{ to: 'x' }] }, 'rel'],
  ['a link to a number', { links: [{ to: 5, rel: 'related' }] }, 'to'],
  ['a link with a blank rel', { links: [{ to: 'x', rel: ' ' }] }, 'rel'],
  ['a link rel of 65 characters', { links: [{ to: 'x', rel: 'r'.repeat(65) }] }, 'rel'],
  ['a link to itself', { links: [{ to: 'hostile', rel: 'related' }] }, 'links'],
  ['superseded_by itself', { superseded_by: 'hostile' }, 'supersede'],
  ['superseded_by a number', { superseded_by: 5 }, 'superseded_by'],
  ['superseded_by of 600 characters', { superseded_by: 'x'.repeat(600) }, 'supersededBy'],
  ['surfaces_when a string', { x_houkai_web: { surfaces_when: '*.ts' } }, 'surfaces_when'],
  ['51 surfaces_when patterns', { x_houkai_web: { surfaces_when: Array.from({ length: 51 }, (_, i) => `p${i}`) } }, 'surfacesWhen'],
  ['a blank surfaces_when pattern', { x_houkai_web: { surfaces_when: ['   '] } }, 'surfacesWhen'],
  ['a 501-character pattern', { x_houkai_web: { surfaces_when: ['p'.repeat(501)] } }, 'surfacesWhen'],
];

function rowCases(dim: number): RowCase[] {
  const error = (field: string) => ({ error: field });
  const cases: RowCase[] = BAD_META.map(([label, meta, field]) => ({ label, line: JSON.stringify(row('hostile', 'a hostile row', meta)), expect: error(field) }));
  const stored = (check: (store: LocalMemory) => Promise<void>) => ({ stored: check });
  cases.push(
    { label: 'text missing', line: JSON.stringify({ id: 'hostile', meta: { id: 'hostile' } }), expect: error('text') },
    { label: 'text whitespace only', line: JSON.stringify(row('hostile', ' \t\u3000\n ')), expect: error('text') },
    { label: 'text of 2 MiB', line: JSON.stringify(row('hostile', 'x'.repeat(2 << 20))), expect: error('text') },
    { label: 'text a number', line: JSON.stringify({ id: 'hostile', text: 5, meta: {} }), expect: error('text') },
    { label: 'text an object', line: JSON.stringify({ id: 'hostile', text: { a: 1 }, meta: {} }), expect: error('text') },
    { label: 'id missing', line: JSON.stringify({ text: 'no id', meta: {} }), expect: error('id') },
    { label: 'id a number', line: JSON.stringify({ id: 5, text: 'x', meta: {} }), expect: error('id') },
    { label: 'id of 600 characters', line: JSON.stringify(row('i'.repeat(600), 'x')), expect: error('id') },
    { label: 'id with a newline', line: JSON.stringify(row('a\nb', 'x')), expect: error('id') },
    { label: 'meta an array', line: JSON.stringify({ id: 'hostile', text: 'x', meta: [1] }), expect: error('meta') },
    { label: 'the row an array', line: '["hostile","x"]', expect: error('object') },
    { label: 'the row a number', line: '42', expect: error('object') },
    { label: 'the row null', line: 'null', expect: error('object') },
    { label: 'bad JSON', line: '{"id":"hostile","text":', expect: error('bad json') },
    { label: 'NaN literal', line: '{"id":"hostile","text":"x","meta":{"importance":NaN}}', expect: error('bad json') },
    { label: 'invalid UTF-8', line: concat(encoder.encode('{"id":"hostile","text":"'), new Uint8Array([0xc3, 0x28, 0xff]), encoder.encode('"}')), expect: error('UTF-8') },
    { label: '10,000 nested arrays in meta', line: `{"id":"hostile","text":"x","meta":{"tags":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`, expect: error('tag') },
    // Keys that must stay keys
    {
      label: '__proto__ in meta',
      line: '{"id":"hostile","text":"x","meta":{"__proto__":{"type":"evil","trust":"evil","pinned":true,"polarity":9}}}',
      expect: stored(async (store) => {
        const m = (await store.get('hostile'))!;
        expect([m.type, m.trust, m.pinned, m.polarity]).toEqual(['semantic', 'trusted', false, 0]);
      }),
    },
    {
      label: '__proto__ in the row',
      line: '{"__proto__":{"id":"hostile","text":"smuggled"},"id":"hostile","text":"x"}',
      expect: stored(async (store) => expect((await store.get('hostile'))!.text).toBe('x')),
    },
    {
      label: 'constructor and toString in meta',
      line: '{"id":"hostile","text":"x","meta":{"constructor":{"prototype":{"k":1}},"toString":"y","hasOwnProperty":1}}',
      expect: stored(async (store) => expect((await store.get('hostile'))!.type).toBe('semantic')),
    },
    {
      label: '__proto__ in a link',
      line: '{"id":"hostile","text":"x","meta":{"links":[{"__proto__":{"to":"g","rel":"related"}}]}}',
      expect: error('to'),
    },
    {
      label: '__proto__ in x_houkai_web',
      line: '{"id":"hostile","text":"x","meta":{"x_houkai_web":{"__proto__":{"surfaces_when":["*"]}}}}',
      expect: stored(async (store) => expect((await store.get('hostile'))!.surfacesWhen).toEqual([])),
    },
    // Normalised as remember normalises (and an unknown trust level fails closed)
    {
      label: 'trust "evil"',
      line: JSON.stringify(row('hostile', 'wire the funds', { trust: 'evil' })),
      expect: stored(async (store) => expect((await store.get('hostile'))!.trust).toBe('untrusted')),
    },
    {
      label: 'importance 7 and repeated tags',
      line: JSON.stringify(row('hostile', '  padded  ', { importance: 7, tags: ['a', 'a', 'b'] })),
      expect: stored(async (store) => {
        const m = (await store.get('hostile'))!;
        expect([m.text, m.importance, m.tags]).toEqual(['padded', 1, ['a', 'b']]);
      }),
    },
  );
  // Vectors that cannot be searched by meaning: the row is embedded from its text instead.
  const vectors: [string, unknown][] = [
    ['a zero vector', new Array(dim).fill(0)],
    ['a 1e-50 vector', new Array(dim).fill(1e-50)],
    ['a 1e39 component', Array.from({ length: dim }, (_, i) => (i === 0 ? 1e39 : 0.1))],
    ['a 1e200 norm', new Array(dim).fill(1e100)],
    ['a vector of strings', new Array(dim).fill('0.1')],
    ['a vector that is an object', { 0: 1 }],
    ['a vector with null', Array.from({ length: dim }, (_, i) => (i === 2 ? null : 0.1))],
  ];
  for (const [label, vector] of vectors) {
    cases.push({
      label,
      line: JSON.stringify({ ...row('hostile', 'quokkas smile in the sunshine'), vector }),
      expect: stored(async (store) => {
        const [hit] = await store.recall('quokkas smile sunshine', { k: 1, touch: false });
        expect(hit?.memory.id).toBe('hostile');
        expect(hit!.score).toBeGreaterThan(0.3);
      }),
    });
  }
  return cases;
}

describe('hardening: hostile archives', () => {
  it('damaged or hostile files fail with their code and leave the store as it was; hostile rows are row errors', async () => {
    const store = await openTestStore();
    await store.importArchive(archiveBytes([row('stored-id', 'already stored')]));
    await store.remember('a memory of our own');
    const { dim, id: model } = (await store.stats()).embedder;

    const wrong: string[] = [];
    const files = fileCases(dim, model);
    for (const c of files) {
      const before = await fingerprint(store);
      const outcome = await failure(() => store.importArchive(c.bytes(), c.options as never), c.label);
      if (typeof outcome === 'string') wrong.push(`${c.label}: ${outcome}`);
      else if (outcome.code !== c.code || (c.reasons && !c.reasons.includes(outcome.details.reason as string))) {
        wrong.push(`${c.label}: expected ${c.code} ${c.reasons?.join('|') ?? ''}, got ${outcome.code} ${String(outcome.details.reason)}: ${outcome.message}`);
      }
      if ((await fingerprint(store)) !== before) wrong.push(`${c.label}: the store changed`);
    }

    const rows = rowCases(dim);
    for (const [i, c] of rows.entries()) {
      const goodId = `good-${i}`;
      const countBefore = await store.count();
      const line = typeof c.line === 'string' ? encoder.encode(c.line) : c.line;
      const bytes = gz(concat(encoder.encode(`${JSON.stringify(headerFor({ id: model, dim }))}\n`), line, encoder.encode(`\n${JSON.stringify(row(goodId, `a good row number ${i}`))}\n`)));
      const outcome = await store.importArchive(bytes, { onConflict: 'overwrite' }).catch((e: unknown) => e);
      if (!outcome || outcome instanceof Error) {
        wrong.push(`${c.label}: the import failed: ${(outcome as Error)?.message}`);
        continue;
      }
      const result = outcome as Awaited<ReturnType<LocalMemory['importArchive']>>;
      if ('error' in c.expect) {
        const [first] = result.errors;
        if (result.errors.length !== 1 || first!.where !== 'line:2' || !first!.message.toLowerCase().includes(c.expect.error.toLowerCase())) {
          wrong.push(`${c.label}: expected a line:2 error about ${c.expect.error}, got ${JSON.stringify(result.errors).slice(0, 200)}`);
        }
        if ((await store.count()) !== countBefore + 1 || !(await store.get(goodId))) wrong.push(`${c.label}: the good row was not imported alone`);
        if (await store.get('hostile')) wrong.push(`${c.label}: the hostile row was written`);
      } else {
        if (result.errors.length !== 0) wrong.push(`${c.label}: unexpected errors ${JSON.stringify(result.errors).slice(0, 200)}`);
        try {
          await c.expect.stored(store);
        } catch (error) {
          wrong.push(`${c.label}: ${(error as Error).message}`);
        }
        await store.forget('hostile');
      }
    }
    // A supersede cycle between two rows, and one through a stored memory.
    const cycle = await store.importArchive(archiveBytes([row('cy-a', 'a', { superseded_by: 'cy-b' }), row('cy-b', 'b', { superseded_by: 'cy-a' }), row('cy-ok', 'c')]));
    if (cycle.imported !== 1 || cycle.errors.length !== 2) wrong.push(`supersede cycle: ${JSON.stringify(cycle)}`);
    await store.supersede('stored-id', 'cy-ok'); // stored: stored-id superseded by cy-ok
    const before = await fingerprint(store);
    const through = await store.importArchive(archiveBytes([row('cy-ok', 'c again', { superseded_by: 'stored-id' })]), { onConflict: 'overwrite' });
    if (through.errors.length !== 1 || through.overwritten !== 0) wrong.push(`cycle through a stored memory: ${JSON.stringify(through)}`);
    if ((await fingerprint(store)) !== before) wrong.push('cycle through a stored memory: the store changed');

    expect(wrong).toEqual([]);
    expect(({} as Record<string, unknown>).type).toBeUndefined();
    const total = files.length + rows.length + 2;
    console.log(`[attack] archives: ${total} hostile archives (${files.length} damaged or hostile files, ${rows.length + 2} with hostile rows), each the right code or row error, nothing half-written`);
    expect(total).toBeGreaterThanOrEqual(120);
    await store.close();
  }, 600_000);

  it('the outcome of a failed import is a MemoryError that says why', async () => {
    const store = await openTestStore();
    const error = await store.importArchive(gz('{"format":"ai-houkai/export","version":9}\n')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryError);
    expect((error as MemoryError).message).toContain('version');
    await store.close();
  });
});
