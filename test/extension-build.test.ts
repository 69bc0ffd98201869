import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeHnswlibEval } from '../scripts/hnswlib-no-eval.mjs';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

// The extension's CSP allows 'wasm-unsafe-eval' but never 'unsafe-eval', and applies to its
// workers too. Node's --disallow-code-generation-from-strings makes `new Function` and `eval`
// throw the same way, so the patched glue is run under it: it must build an index and search
// it, and the glue as shipped must fail there (or this test would prove nothing).
describe('hnswlib-wasm without code built from strings (the extension build)', () => {
  let dir = '';
  const check = `
    globalThis.window = globalThis; // the glue's ENVIRONMENT=web check, as src/adapters/hnswlib-loader.ts does
    const { default: factory } = await import(process.argv[2]);
    const lib = await factory();
    const index = new lib.HierarchicalNSW('cosine', 4, '');
    index.initIndex(16, 16, 100, 7);
    index.addPoints([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], [10, 11, 12], false);
    index.markDelete(12);
    const found = index.searchKnn([0.9, 0.1, 0, 0], 2, undefined);
    console.log(JSON.stringify({ neighbors: found.neighbors, count: index.getCurrentCount() }));
  `;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'houkai-hnswlib-'));
    const glue = join(dirname(require.resolve('hnswlib-wasm/dist/hnswlib.js')), 'hnswlib-317962d7.js');
    const source = await readFile(glue, 'utf8');
    await writeFile(join(dir, 'shipped.mjs'), source);
    await writeFile(join(dir, 'patched.mjs'), removeHnswlibEval(source));
    await writeFile(join(dir, 'check.mjs'), check);
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const node = (glue: string) => run(process.execPath, ['--disallow-code-generation-from-strings', join(dir, 'check.mjs'), join(dir, glue)], { timeout: 60_000 });

  it('the patched glue builds and searches an index with no string evaluation', async () => {
    const { stdout } = await node('patched.mjs');
    expect(JSON.parse(stdout.trim().split('\n').pop()!)).toEqual({ neighbors: [10, 11], count: 3 });
  });

  it('the glue as shipped cannot run there', async () => {
    const error = await node('shipped.mjs').catch((e: unknown) => e as { stderr: string });
    expect(error).toMatchObject({ stderr: expect.stringMatching(/Code generation from strings disallowed/) as unknown });
  });

  it('refuses glue it does not recognise instead of shipping it unpatched', () => {
    expect(() => removeHnswlibEval('var x = 1;')).toThrow(/hnswlib-wasm's glue changed/);
  });
});
