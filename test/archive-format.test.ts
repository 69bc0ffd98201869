import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  canonicalModelName,
  isSameModel,
  memoryToMeta,
  parseHeader,
  pyFloatRepr,
  pyJsonString,
  rowFromLine,
  serializeRow,
} from '../src/core/archive/format.ts';
import type { ParsedRow, RowError } from '../src/core/archive/format.ts';
import { collectBytes, createGzipWriter, gunzip, gunzipLines, gzipStream } from '../src/core/archive/gzip.ts';
import type { ArchiveLine, ByteSource } from '../src/core/archive/gzip.ts';
import { validateImport } from '../src/core/archive/plan.ts';
import { MemoryError } from '../src/core/errors.ts';
import type { Memory } from '../src/core/types.ts';
import {
  FIXTURE_DIM,
  concatBytes,
  emptyArchive,
  futureVersionArchive,
  goArchive,
  goText,
  gzipGoMember,
  gzipPythonMember,
  headerNotJsonArchive,
  multiMemberArchive,
  notGzipFile,
  pythonArchive,
  pythonText,
  sampleMemories,
  sampleVectors,
  truncatedArchive,
  truncatedSingleMember,
  wrongFormatArchive,
} from './fixtures/make-archives.ts';

const NOW = 1800000000.5;

async function lines(source: ByteSource): Promise<ArchiveLine[]> {
  const out: ArchiveLine[] = [];
  for await (const line of gunzipLines(source)) out.push(line);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<MemoryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MemoryError);
  return error as MemoryError;
}

function okRow(text: string, lineNo = 2): ParsedRow {
  const row = rowFromLine(text, lineNo, { now: NOW });
  expect(row?.ok, JSON.stringify(row)).toBe(true);
  return row as ParsedRow;
}

function badRow(text: string, lineNo = 2): RowError {
  const row = rowFromLine(text, lineNo, { now: NOW });
  expect(row?.ok, JSON.stringify(row)).toBe(false);
  return row as RowError;
}

function chunked(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

/** Reads the archive the way the importer does, returning the failure reason (or 'ok'). */
async function headerOutcome(bytes: Uint8Array): Promise<string> {
  try {
    await validateImport(gunzipLines(bytes), {
      store: { embedderId: 'Xenova/all-MiniLM-L6-v2', dim: FIXTURE_DIM },
      lookup: async () => false,
      now: NOW,
    });
    return 'ok';
  } catch (error) {
    expect(error).toBeInstanceOf(MemoryError);
    const e = error as MemoryError;
    expect(e.code as string).toBe('INVALID_ARCHIVE');
    return e.details['reason'] as string;
  }
}

describe('header checks (§1.7 step 3): every failure is distinct', () => {
  it('classifies each broken archive with its own reason', async () => {
    const outcomes = {
      notGzip: await headerOutcome(notGzipFile()),
      empty: await headerOutcome(emptyArchive()),
      emptyBytes: await headerOutcome(new Uint8Array(0)),
      notJson: await headerOutcome(headerNotJsonArchive()),
      badFormat: await headerOutcome(wrongFormatArchive()),
      future: await headerOutcome(futureVersionArchive()),
      truncated: await headerOutcome(truncatedArchive()),
      truncatedSingle: await headerOutcome(truncatedSingleMember()),
      good: await headerOutcome(pythonArchive()),
    };
    expect(outcomes).toEqual({
      notGzip: 'not-gzip',
      empty: 'empty',
      emptyBytes: 'empty',
      notJson: 'not-json',
      badFormat: 'bad-format',
      future: 'future-version',
      truncated: 'truncated',
      truncatedSingle: 'truncated',
      good: 'ok',
    });
  });

  it('parseHeader applies the reference rules', () => {
    const reason = (line: string | undefined): unknown => {
      try {
        parseHeader(line);
        return 'ok';
      } catch (error) {
        return (error as MemoryError).details['reason'];
      }
    };
    expect(reason(undefined)).toBe('empty');
    expect(reason('')).toBe('not-json'); // a blank first line is not "empty" in Python either
    expect(reason('{"format":"ai-houkai/export"')).toBe('not-json');
    expect(reason('[1,2]')).toBe('bad-format');
    expect(reason('{"version":1}')).toBe('bad-format');
    expect(reason('{"format":"ai-houkai/export","version":null}')).toBe('bad-format');
    expect(reason('{"format":"ai-houkai/export","version":2}')).toBe('future-version');
    expect(reason('{"format":"ai-houkai/export","version":1.9}')).toBe('ok'); // int(1.9) == 1
    expect(reason('{"format":"ai-houkai/export","version":"1"}')).toBe('ok'); // int("1") == 1
    expect(reason('{"format":"ai-houkai/export"}')).toBe('ok'); // missing version = 0
    expect(reason('\ufeff{"format":"ai-houkai/export","version":1}')).toBe('not-json'); // Python keeps the BOM

    const future = (() => {
      try {
        parseHeader('{"format":"ai-houkai/export","version":99}');
      } catch (error) {
        return error as MemoryError;
      }
      return undefined;
    })();
    expect(future?.message).toContain('version 99 > reader version 1');
  });

  it('reads the vector fields like Python (truthiness, int(), defaults)', () => {
    const h = (source: object, options: object): ReturnType<typeof parseHeader> =>
      parseHeader(JSON.stringify({ format: EXPORT_FORMAT, version: EXPORT_VERSION, source, options }));
    expect(h({ embedding_dim: 384 }, {}).fileHasVectors).toBe(true); // include_vectors defaults to True
    expect(h({ embedding_dim: 384 }, { include_vectors: false }).fileHasVectors).toBe(false);
    expect(h({ embedding_dim: 384 }, { include_vectors: null }).fileHasVectors).toBe(false); // bool(None)
    expect(h({ embedding_dim: 0 }, { include_vectors: true }).fileHasVectors).toBe(false);
    expect(h({ embedding_dim: '384' }, {}).source.embeddingDim).toBe(384);
    expect(h({ embedding_model: '' }, {}).source.embeddingModel).toBeNull();
    expect(h({}, { since: 0 }).options.since).toBeNull(); // Go's "no bound"
    expect(h({}, { since: 12.5, types: ['semantic'] }).options).toMatchObject({ since: 12.5, types: ['semantic'], tags: null });
  });
});

describe('rows: §1.4 defaults and §1.7 precedence', () => {
  it('a bare row gets every default', () => {
    const row = okRow('{"id":"x","text":"hello"}');
    expect(row.id).toBe('x');
    expect(row.vector).toBeUndefined();
    expect(row.memory).toEqual({
      id: 'x',
      text: 'hello',
      type: 'semantic',
      tags: [],
      importance: 0.5,
      createdAt: NOW,
      lastAccessed: NOW,
      accessCount: 0,
      source: null,
      links: [],
      supersededBy: '',
      supersededAt: 0,
      polarity: 0,
      expiresAt: 0,
      pinned: false,
      trust: 'trusted',
      contentHash: '',
      validFrom: 0,
      validUntil: 0,
      surfacesWhen: [],
    } satisfies Memory);
  });

  it('row.id and row.text win over meta; meta fills in when the row has none', () => {
    expect(okRow('{"id":"row","text":"row text","meta":{"id":"meta","text":"meta text"}}').memory).toMatchObject({ id: 'row', text: 'row text' });
    expect(okRow('{"id":"","text":"","meta":{"id":"meta","text":"meta text"}}').memory).toMatchObject({ id: 'meta', text: 'meta text' });
    expect(okRow('{"meta":{"id":"only-meta","text":"t"}}').id).toBe('only-meta');
  });

  it('null and falsy values fall back where Python uses `or`', () => {
    const row = okRow(
      '{"id":"x","text":"t","meta":{"tags":null,"links":null,"source":null,"superseded_by":null,"superseded_at":null,' +
        '"polarity":null,"expires_at":null,"pinned":null,"trust":null,"content_hash":null,"valid_from":null,"valid_until":null}}',
    );
    expect(row.memory).toMatchObject({
      tags: [],
      links: [],
      source: null,
      supersededBy: '',
      supersededAt: 0,
      polarity: 0,
      expiresAt: 0,
      pinned: false,
      trust: 'trusted',
      contentHash: '',
      validFrom: 0,
      validUntil: 0,
    });
    expect(okRow('{"id":"x","text":"t","meta":{"source":""}}').memory.source).toBeNull(); // Go's "" source
    expect(okRow('{"id":"x","text":"t","meta":{"tags":""}}').memory.tags).toEqual([]);
    expect(okRow('{"id":"x","text":"t","meta":{"pinned":"yes"}}').memory.pinned).toBe(true); // bool("yes")
    expect(okRow('{"id":"x","text":"t","meta":{"access_count":2.9,"polarity":-1.0}}').memory).toMatchObject({ accessCount: 2, polarity: -1 });
  });

  it('does not validate or normalise what the reference passes through', () => {
    const row = okRow(
      '{"id":"x","text":"  padded  ","meta":{"type":"opinion","trust":"whatever","importance":7,"polarity":3,' +
        '"links":[{"to":"nowhere","rel":"made-up","extra":1}],"tags":["a,b"," "]}}',
    );
    expect(row.memory).toMatchObject({
      text: '  padded  ',
      type: 'opinion',
      trust: 'whatever',
      importance: 7,
      polarity: 3,
      links: [{ to: 'nowhere', rel: 'made-up' }],
      tags: ['a,b', ' '],
    });
  });

  it('reports malformed rows as line:N with the pre-scan id', () => {
    const cases: [string, string][] = [
      ['{"id":"a","text":"t","meta":{"importance":null}}', 'importance is null'],
      ['{"id":"a","text":"t","meta":{"created_at":null}}', 'created_at is null'],
      ['{"id":"a","text":"t","meta":{"last_accessed":null}}', 'last_accessed is null'],
      ['{"id":"a","text":"t","meta":{"access_count":null}}', 'access_count is null'],
      ['{"id":"a","text":"t","meta":{"type":null}}', 'type is null'],
      ['{"id":"a","text":"t","meta":{"tags":"abc"}}', 'tags must be an array'],
      ['{"id":"a","text":"t","meta":{"tags":[1]}}', 'tags must be strings'],
      ['{"id":"a","text":"t","meta":{"links":[{"to":"b"}]}}', 'each link needs'],
      ['{"id":"a","text":"t","meta":{"importance":"0.5"}}', 'importance must be a number'],
      ['{"id":"a","meta":{}}', 'missing text'],
      ['{"id":"a","text":"","meta":{"text":""}}', 'missing text'],
      ['{"id":"a","text":5}', 'text must be a string'],
      ['{"id":"a","text":"t","meta":[1]}', 'meta must be an object'],
    ];
    for (const [line, message] of cases) {
      const error = badRow(line, 7);
      expect(error).toMatchObject({ where: 'line:7', kind: 'malformed', id: 'a' });
      expect(error.message).toContain(message);
    }
    expect(badRow('{"text":"t"}')).toMatchObject({ message: 'missing id', id: '' });
    expect(badRow('{"id":5,"text":"t"}')).toMatchObject({ id: '5' });
    expect(badRow('[1,2]')).toMatchObject({ kind: 'malformed', id: null });
    const json = badRow('{not json}', 3);
    expect(json).toMatchObject({ where: 'line:3', kind: 'bad-json', id: null });
    expect(json.message.startsWith('bad json: ')).toBe(true);
    expect(rowFromLine('{"id":"a","text":"t"}', 4, { invalidUtf8: true })).toMatchObject({ ok: false, kind: 'bad-json' });
  });

  it('skips blank lines (after Python strip) and strips around the JSON', () => {
    expect(rowFromLine('', 2)).toBeNull();
    expect(rowFromLine(' \t\u00a0\u3000', 2)).toBeNull();
    expect(okRow('\u00a0 {"id":"x","text":"t"} \u2028').id).toBe('x');
  });

  it('keeps a vector as float32, and flags one it cannot read', () => {
    const row = okRow('{"id":"x","text":"t","vector":[0.1,1,-2.5]}');
    expect(row.vector).toEqual(new Float32Array([0.1, 1, -2.5]));
    expect(okRow('{"id":"x","text":"t","vector":null}').vector).toBeUndefined();
    expect(okRow('{"id":"x","text":"t","vector":[1,"a"]}').vectorError).toContain('vector[1]');
    expect(okRow('{"id":"x","text":"t","vector":{}}').vectorError).toContain('not an array');
  });

  it('reads the extension object AI-Houkai ignores, with surfaces_when', () => {
    const row = okRow('{"id":"x","text":"t","meta":{"x_houkai_web":{"k":1,"surfaces_when":["src/db/**","timeout"]}}}');
    expect(row.extension).toEqual({ k: 1, surfaces_when: ['src/db/**', 'timeout'] });
    expect(row.memory.surfacesWhen).toEqual(['src/db/**', 'timeout']);
    expect(okRow('{"id":"x","text":"t","meta":{"x_houkai_web":{"surfaces_when":null}}}').memory.surfacesWhen).toEqual([]);
    expect(badRow('{"id":"x","text":"t","meta":{"x_houkai_web":{"surfaces_when":"*.sql"}}}').message).toContain('surfaces_when');
  });
});

describe('Python and Go writers (§1.5)', () => {
  it('parse to identical memories and vectors', async () => {
    const memories = sampleMemories();
    const vectors = sampleVectors(memories.length);
    const fromPython = (await lines(pythonArchive({ memories, vectors }))).slice(1).map((l) => okRow(l.text, l.lineNo));
    const fromGo = (await lines(goArchive({ memories, vectors }))).slice(1).map((l) => okRow(l.text, l.lineNo));
    expect(fromPython.map((r) => r.memory)).toEqual(memories);
    expect(fromGo.map((r) => r.memory)).toEqual(memories);
    fromPython.forEach((row, i) => {
      expect(Array.from(row.vector ?? [])).toEqual(Array.from(vectors[i] as Float32Array));
      expect(Array.from(fromGo[i]?.vector ?? [])).toEqual(Array.from(vectors[i] as Float32Array));
    });
  });

  it('Go text really differs: sorted keys, raw UTF-8, \\u003c, integer floats, "" source, nil slices, since 0', () => {
    const text = goText({ memories: sampleMemories() });
    const [header, first, second] = text.split('\n');
    expect(header?.startsWith('{"exported_at":')).toBe(true);
    expect(header).toContain('"since":0');
    expect(first?.startsWith('{"id":"m-001","meta":{"access_count":0,')).toBe(true);
    expect(first).toContain('"created_at":1769904000,');
    expect(first).toContain('"links":null');
    expect(second).toContain('Café au lait ☕ — 日本語 🚀 \\u003cb\\u003e\\u0026amp;\\u003c/b\\u003e\\u2028next');
    expect(pythonText({ memories: sampleMemories() })).toContain('"created_at":1769904000.0,');
  });

  it('decodes \\u escapes and surrogate pairs, and writes them back like ensure_ascii', () => {
    const row = okRow(String.raw`{"id":"x","text":"\ud83d\ude80 caf\u00e9 \u2028 \"q\" \\ \n"}`);
    expect(row.memory.text).toBe('🚀 café \u2028 "q" \\ \n');
    expect(pyJsonString(row.memory.text)).toBe(String.raw`"\ud83d\ude80 caf\u00e9 \u2028 \"q\" \\ \n"`);
    expect(pyJsonString('\u0000\u0008\u000c\u001f\u007f~ ')).toBe(String.raw`"\u0000\b\f\u001f\u007f~ "`);
    expect(pyJsonString('\ud800')).toBe(String.raw`"\ud800"`); // a lone surrogate, as Python writes it
  });

  it('treats integer-valued and fractional numbers alike', () => {
    const a = okRow('{"id":"x","text":"t","meta":{"created_at":1769904000,"importance":1,"expires_at":0}}');
    const b = okRow('{"id":"x","text":"t","meta":{"created_at":1769904000.0,"importance":1.0,"expires_at":0.0}}');
    expect(a.memory).toEqual(b.memory);
  });
});

describe('writing rows (Python json.dumps, separators=(",", ":"))', () => {
  const sample: Memory = {
    id: 'abc',
    text: 'Café 🚀 "q" <x>\n',
    type: 'semantic',
    tags: ['a', 'é'],
    importance: 0.5,
    createdAt: 1769904000,
    lastAccessed: 1769904000.25,
    accessCount: 2,
    source: null,
    links: [{ to: 'def', rel: 'refines' }],
    supersededBy: '',
    supersededAt: 0,
    polarity: -1,
    expiresAt: 0,
    pinned: true,
    trust: 'trusted',
    contentHash: 'ff',
    validFrom: 0.00001,
    validUntil: 1e16,
    surfacesWhen: [],
  };

  it('is byte-equal to the hand-written Python line', () => {
    // What Python prints for this row: keys in to_dict() order, floats with ".0", 1e-05 and
    // 1e+16 exponents, ensure_ascii escapes, vector values as the doubles of their float32.
    const expected = String.raw`{"id":"abc","text":"Caf\u00e9 \ud83d\ude80 \"q\" <x>\n","meta":{"id":"abc","text":"Caf\u00e9 \ud83d\ude80 \"q\" <x>\n","type":"semantic","tags":["a","\u00e9"],"importance":0.5,"created_at":1769904000.0,"last_accessed":1769904000.25,"access_count":2,"source":null,"links":[{"to":"def","rel":"refines"}],"superseded_by":"","superseded_at":0.0,"polarity":-1,"expires_at":0.0,"pinned":true,"trust":"trusted","content_hash":"ff","valid_from":1e-05,"valid_until":1e+16},"vector":[0.5,-0.0,0.10000000149011612]}`;
    expect(serializeRow(sample, new Float32Array([0.5, -0, 0.1]))).toBe(expected);
  });

  it('writes "" source as null and the extension key last', () => {
    const meta = memoryToMeta({ ...sample, source: '' }, { origin: 'houkai-web' });
    expect(meta.source).toBeNull();
    expect(Object.keys(meta).at(-1)).toBe('x_houkai_web');
    expect(Object.keys(memoryToMeta(sample))).not.toContain('x_houkai_web');
  });

  it('keeps surfacesWhen in x_houkai_web, after the Python keys', () => {
    const line = serializeRow({ ...sample, surfacesWhen: ['*.sql', 'timeout'] });
    expect(line.endsWith(',"valid_until":1e+16,"x_houkai_web":{"surfaces_when":["*.sql","timeout"]}}}')).toBe(true);
    expect(okRow(line).memory).toEqual({ ...sample, surfacesWhen: ['*.sql', 'timeout'] });
  });

  it('matches Python float repr', () => {
    const table: [number, string][] = [
      [0, '0.0'],
      [-0, '-0.0'],
      [1, '1.0'],
      [1769904000, '1769904000.0'],
      [1788220800.5, '1788220800.5'],
      [0.1, '0.1'],
      [0.0001, '0.0001'],
      [0.00001, '1e-05'],
      [1.5e-7, '1.5e-07'],
      [123456789012345.6, '123456789012345.6'],
      [9999999999999998, '9999999999999998.0'],
      [1e16, '1e+16'],
      [1.2345678901234568e17, '1.2345678901234568e+17'],
      [1e22, '1e+22'],
      [5e-324, '5e-324'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [-2.5, '-2.5'],
      [Math.fround(0.1), '0.10000000149011612'],
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
    ];
    for (const [value, repr] of table) expect(pyFloatRepr(value), String(value)).toBe(repr);
  });

  it('round-trips float32 vectors exactly', () => {
    const vector = new Float32Array(384);
    for (let i = 0; i < vector.length; i++) vector[i] = Math.fround(Math.sin(i * 12.9898) * 43758.5453) % 1;
    vector[0] = 1e-30;
    vector[1] = -0;
    vector[2] = 3.4028234663852886e38;
    const back = okRow(serializeRow(sample, vector));
    expect(back.vector?.length).toBe(384);
    for (let i = 0; i < vector.length; i++) expect(Object.is(back.vector?.[i], vector[i]), `index ${i}`).toBe(true);
    expect(back.memory).toEqual(sample);
  });
});

describe('model names', () => {
  it('treats the MiniLM aliases as one model', () => {
    expect(isSameModel('all-MiniLM-L6-v2', 'Xenova/all-MiniLM-L6-v2')).toBe(true);
    expect(isSameModel('sentence-transformers/all-MiniLM-L6-v2', 'Xenova/all-MiniLM-L6-v2')).toBe(true);
    expect(isSameModel('sentence-transformers/all-MiniLM-L6-v2', 'all-MiniLM-L6-v2')).toBe(true);
    expect(isSameModel('nomic-embed-text', 'all-MiniLM-L6-v2')).toBe(false);
    expect(isSameModel('all-MiniLM-L12-v2', 'Xenova/all-MiniLM-L6-v2')).toBe(false);
    expect(canonicalModelName('Xenova/all-MiniLM-L6-v2')).toBe('all-MiniLM-L6-v2');
  });
});

describe('gzip reading', () => {
  it('reads multi-member gzip across the member boundary, in any chunking', async () => {
    const memories = sampleMemories();
    const vectors = sampleVectors(memories.length);
    const single = (await lines(pythonArchive({ memories, vectors }))).map((l) => l.text);
    const archive = multiMemberArchive({ memories, vectors });
    expect(single.length).toBe(memories.length + 1);
    for (const size of [1, 7, 100, 1 << 20]) {
      expect((await lines(chunked(archive, size))).map((l) => l.text), `chunks of ${size}`).toEqual(single);
    }
    expect((await lines(new Blob([archive.slice()]))).map((l) => l.text)).toEqual(single);
    expect((await lines(new Blob([archive.slice()]).stream())).map((l) => l.text)).toEqual(single);
  });

  it('a line may span members', async () => {
    const text = pythonText();
    const cut = text.indexOf('\n') + 25;
    const archive = concatBytes([gzipPythonMember(text.slice(0, cut)), gzipGoMember(text.slice(cut)), gzipGoMember('')]);
    expect((await lines(archive)).map((l) => l.text).join('\n')).toBe(text.slice(0, -1));
  });

  it('reports a truncated stream as truncated, after the lines before it', async () => {
    const seen: string[] = [];
    const error = await failure(
      (async () => {
        for await (const line of gunzipLines(truncatedArchive())) seen.push(line.text);
      })(),
    );
    expect(error.code as string).toBe('INVALID_ARCHIVE');
    expect(error.details['reason']).toBe('truncated');
    expect(seen[0]?.startsWith('{"format":"ai-houkai/export"')).toBe(true);

    const whole = pythonArchive();
    for (const cut of [2, 5, 12, whole.length - 8, whole.length - 3, whole.length - 1]) {
      const e = await failure(lines(whole.subarray(0, cut)));
      expect(e.details['reason'], `cut at ${cut}`).toBe('truncated');
    }
  });

  it('reports corruption and foreign bytes distinctly', async () => {
    const whole = pythonArchive();
    const flipped = whole.slice();
    flipped[whole.length - 6] = (flipped[whole.length - 6] as number) ^ 1; // inside the CRC
    expect((await failure(lines(flipped))).details['reason']).toBe('corrupt');
    const garbage = concatBytes([whole, new TextEncoder().encode('garbage!')]);
    expect((await failure(lines(garbage))).details['reason']).toBe('corrupt');
    expect((await failure(lines(notGzipFile()))).details['reason']).toBe('not-gzip');
    expect(await lines(new Uint8Array(0))).toEqual([]);
    expect(await lines(emptyArchive())).toEqual([]);
  });

  it('the native fast path yields what the checked reader yields, fails the same way, and is taken for one complete member', async () => {
    const memories = sampleMemories();
    const vectors = sampleVectors(memories.length);
    const whole = pythonArchive({ memories, vectors });
    const content = new TextEncoder().encode(pythonText({ memories, vectors }));
    const flipped = whole.slice();
    flipped[whole.length - 6] = (flipped[whole.length - 6] as number) ^ 1;
    const cases: Record<string, Uint8Array> = {
      single: whole,
      go: goArchive({ memories, vectors }),
      multi: multiMemberArchive({ memories, vectors }),
      zeroPadding: concatBytes([whole, new Uint8Array(16)]),
      garbage: concatBytes([whole, new TextEncoder().encode('garbage!')]),
      badCrc: flipped,
      notGzip: notGzipFile(),
      nothing: new Uint8Array(0),
      empty: emptyArchive(),
      ...Object.fromEntries([2, 12, 40, whole.length >> 1, whole.length - 8, whole.length - 1].map((cut) => [`cut${cut}`, whole.subarray(0, cut)])),
    };
    const read = async (source: ByteSource, native: boolean): Promise<{ bytes: Uint8Array; reason: unknown }> => {
      const parts: Uint8Array[] = [];
      let reason: unknown = null;
      try {
        for await (const chunk of gunzip(source, { native })) parts.push(chunk.data);
      } catch (error) {
        reason = (error as MemoryError).details['reason'];
      }
      return { bytes: concatBytes(parts), reason };
    };
    const isPrefix = (a: Uint8Array, of: Uint8Array): boolean => a.length <= of.length && a.every((b, i) => b === of[i]);
    for (const [name, bytes] of Object.entries(cases)) {
      const checked = await read(bytes, false);
      for (const source of [bytes, new Blob([bytes.slice()])]) {
        const fast = await read(source, true);
        expect(fast.reason, name).toEqual(checked.reason);
        if (checked.reason === null) expect(fast.bytes, name).toEqual(checked.bytes);
        else expect(isPrefix(fast.bytes, content) && isPrefix(checked.bytes, content), name).toBe(true);
      }
    }

    // One complete member is read by the platform's inflater alone.
    const Native = globalThis.DecompressionStream;
    let made = 0;
    globalThis.DecompressionStream = class extends Native {
      constructor(format: CompressionFormat) {
        super(format);
        made += 1;
      }
    };
    try {
      expect((await read(whole, true)).bytes).toEqual(content);
      expect(made).toBe(1);
    } finally {
      globalThis.DecompressionStream = Native;
    }
  });

  it('splits on \\n, \\r\\n and \\r, counts blank lines (without handing them out) and keeps a last unterminated line', async () => {
    const archive = concatBytes([gzipGoMember('a\r\nb\r'), gzipGoMember('\nc\r\r\n\nd\re')]);
    const got = await lines(archive);
    expect(got.map((l) => [l.lineNo, l.text])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
      [6, 'd'],
      [7, 'e'],
    ]);
    // An empty first line is handed out: it is the (missing) header.
    expect((await lines(gzipGoMember('\n{}\n'))).map((l) => [l.lineNo, l.text])).toEqual([[1, ''], [2, '{}']]);
  });

  it('flags invalid UTF-8 per line instead of failing', async () => {
    const bytes = concatBytes([new TextEncoder().encode('ok\n'), new Uint8Array([0xff, 0xfe, 0x0a]), new TextEncoder().encode('é\n')]);
    const got = await lines(gzipGoMember(bytes));
    expect(got.map((l) => l.invalidUtf8)).toEqual([false, true, false]);
    expect(got[2]?.text).toBe('é');
  });

  it('refuses a line longer than the limit', async () => {
    const error = await failure(
      (async () => {
        for await (const _ of gunzipLines(gzipGoMember('x'.repeat(5000)), { maxLineBytes: 1000 })) void _;
      })(),
    );
    expect(error.details['reason']).toBe('too-long');
  });

  it('reports progress in compressed and decompressed bytes', async () => {
    const archive = pythonArchive();
    const got = await lines(archive);
    const text = pythonText();
    expect(got.at(-1)?.bytesOut).toBe(new TextEncoder().encode(text).length);
    expect(got.at(-1)?.bytesIn).toBe(archive.length);
  });

  it('stops with ABORTED when the signal fires', async () => {
    const controller = new AbortController();
    controller.abort();
    const aborted = await failure(
      (async () => {
        for await (const _ of gunzip(chunked(pythonArchive(), 10), { signal: controller.signal })) void _;
      })(),
    );
    expect(aborted.code).toBe('ABORTED');
  });
});

describe('gzip writing', () => {
  it('writes one member with mtime 0 and no name, readable by zlib', async () => {
    const writer = createGzipWriter();
    const text = pythonText();
    const bytes = concatBytes([...writer.write(text.slice(0, 100)), ...writer.write(text.slice(100)), ...writer.end()]);
    expect(Array.from(bytes.subarray(0, 8))).toEqual([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0]);
    expect(zlib.gunzipSync(bytes).toString('utf8')).toBe(text);
    expect((await lines(bytes)).length).toBe(text.split('\n').length - 1);
  });

  it('gzipStream compresses an async iterable', async () => {
    async function* parts(): AsyncGenerator<string> {
      yield 'hello ';
      yield 'world\n';
    }
    const bytes = await collectBytes(gzipStream(parts()));
    expect(zlib.gunzipSync(bytes).toString('utf8')).toBe('hello world\n');
  });
});
