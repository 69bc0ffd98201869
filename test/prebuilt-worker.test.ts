/**
 * The package's prebuilt worker (scripts/build-worker.mjs, issue #28): one self-contained module
 * that evaluates no strings (hnswlib's glue rewritten; onnxruntime's one emval caller, never
 * called for inference, allowed by its exact shape), names its runtime files with literal
 * `new URL('./…', import.meta.url)` so that bundlers copy them, and keeps onnxruntime's runtime
 * import out of other bundlers' hands. The browser runs of it are e2e/consumers.spec.ts.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorker, forOtherBundlers, stringEvaluations } from '../scripts/build-worker.mjs';
import { modelsFolder } from '../worker/origin-assets.ts';

const out = mkdtempSync(join(tmpdir(), 'houkai-worker-'));
let code = '';

beforeAll(async () => {
  await buildWorker({ quiet: true, out });
  code = readFileSync(join(out, 'memory.worker.js'), 'utf8');
}, 120_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('the prebuilt worker', () => {
  it('is one module with its runtime files beside it, each named by a literal URL', () => {
    const files = readdirSync(out).sort();
    for (const name of ['memory.worker.js', 'ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm', 'tfjs-backend-wasm.wasm', 'tfjs-backend-wasm-simd.wasm', 'tfjs-backend-wasm-threaded-simd.wasm']) {
      expect(files).toContain(name);
      if (name !== 'memory.worker.js') expect(code).toMatch(new RegExp(`new URL\\(["']\\./${name.replace(/\./g, '\\.')}["'], ?import\\.meta\\.url\\)`));
    }
    // Self-contained: no static import of anything (the Node-only modules are stubbed out).
    expect(code).not.toMatch(/^import\s|[;}]import\s*[{*\w][^(]*from\s*["']/m);
  });

  it('evaluates no strings: the hnswlib glue is rewritten and nothing else builds code', () => {
    expect(code).not.toContain('newFunc(Function');
    expect(stringEvaluations(code)).toEqual([]);
    expect(stringEvaluations(readFileSync(join(out, 'ort-wasm-simd-threaded.asyncify.mjs'), 'utf8'))).toEqual([]);
  });

  it('keeps onnxruntime’s runtime import and Node-only bundle name away from other bundlers', () => {
    expect(code).toContain('import(/* webpackIgnore: true */ /* @vite-ignore */ ');
    expect(code).not.toContain('"ort.webgpu.bundle.min.mjs",import.meta.url');
  });
});

describe('the build’s checks', () => {
  it('finds string evaluation anywhere but the one allowed caller', () => {
    expect(stringEvaluations('const f = new Function("a", "return a");')).toHaveLength(1);
    expect(stringEvaluations('x = eval(source);')).toHaveLength(1);
    expect(stringEvaluations('o.eval(x); evaluate(y); new FunctionValue(z);')).toEqual([]);
    const allowed = 'n=new Function(Object.keys(h2), m)(...Object.values(h2));';
    expect(stringEvaluations(allowed)).toEqual([]);
    expect(stringEvaluations(allowed + allowed)).toEqual(['onnxruntime\'s emval caller appears 2 times (expected once)']);
  });

  it('fails when onnxruntime’s or sqlite-wasm’s shape changes, rather than shipping a worker other bundlers break on', () => {
    const ort = 'a=async e=>(await import(e)).default;b=new x("ort.webgpu.bundle.min.mjs",import.meta.url);c=new y("ort.webgpu.bundle.min.mjs",import.meta.url)';
    const sqlite = ';w=()=>new Worker(new URL("sqlite3-worker1.mjs",import.meta.url),{type:"module"})';
    expect(forOtherBundlers(ort + sqlite)).toBe(
      'a=async e=>(await import(/* webpackIgnore: true */ /* @vite-ignore */ e)).default;b=new x(import.meta.url);c=new y(import.meta.url)' +
        ';w=()=>new Worker(new URL("sqlite3-worker1.mjs", String(import.meta.url)),{type:"module"})',
    );
    expect(() => forOtherBundlers('a=1')).toThrow(/one dynamic import/);
    expect(() => forOtherBundlers('a=async e=>(await import(e)).default;')).toThrow(/bundle named twice/);
    expect(() => forOtherBundlers(ort)).toThrow(/Worker1 script named once/);
  });
});

describe('where the worker reads models', () => {
  it('is /models/ on its own origin unless the open request names another folder there', () => {
    expect(modelsFolder(undefined).pathname).toBe('/models/');
    expect(modelsFolder('/assets/models').pathname).toBe('/assets/models/');
    expect(() => modelsFolder('https://elsewhere.example/models/')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
