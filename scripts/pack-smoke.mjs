#!/usr/bin/env node
// Proves `npm pack` of this project installs and works in another folder, as a user's project
// would use it (Node 20, no flags, no loader hooks):
//   - `houkai-web/local` in process (fake-indexeddb, the bundled use-lite model, HNSW);
//   - `houkai-web/worker` serving a store from a worker_threads thread, reached with
//     `connectEndpoint` (from `houkai-web`) over `nodeEndpoint(worker)`;
//   - the published types compile in a strict consumer (`skipLibCheck: false`), with Node's and
//     bundlers' module resolution;
//   - `npx houkai-web models` and `npx houkai-web worker` put their files in the user's folders.
// The browser builds of the package (Vite, webpack, esbuild, Rollup, no bundler, an extension)
// are e2e/consumers.spec.ts.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'houkai-pack-'));
// Every step is bounded: a program that does not end (a thread left running) fails the smoke.
const run = (cmd, args, cwd, env = {}, timeout = 600_000) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', env: { ...process.env, ...env }, timeout, killSignal: 'SIGKILL' });
const check = (ok, what) => {
  if (!ok) throw new Error(`pack-smoke: ${what}`);
};

const SMOKE = `import 'fake-indexeddb/auto';
import { createMemory, MemoryError } from 'houkai-web/local';
const memory = await createMemory({ name: 'smoke', embedder: 'use-lite' });
await memory.rememberMany([
  'We lint the codebase with ESLint and format it with Prettier.',
  'Production deploys happen from the main branch through GitHub Actions.',
  'The team prefers PostgreSQL for relational data.',
]);
const [hit] = await memory.recall('which linter do we use?');
if (!hit.memory.text.includes('ESLint')) throw new Error('wrong first hit: ' + hit.memory.text);
try { await memory.recall('x', { k: 0 }); throw new Error('k=0 accepted'); } catch (e) { if (!(e instanceof MemoryError) || e.code !== 'INVALID_ARGUMENT') throw e; }
const stats = await memory.stats();
await memory.close();
// The default embedder without the optional transformers.js: use-lite, said in one line naming
// the install — to the store's log (by default stderr in Node: stdout stays the program's).
const warned = [];
const auto = await createMemory({ name: 'auto', log: (level, line) => { if (level === 'warn') warned.push(String(line)); } });
if (auto.embedder.id !== 'universal-sentence-encoder-lite') throw new Error('auto without transformers.js took ' + auto.embedder.id);
if (!warned.some((line) => line.includes('npm install @huggingface/transformers'))) throw new Error('no notice naming the install: ' + warned.join(' | '));
await auto.close();
console.log(JSON.stringify({ ok: true, first: hit.memory.text, score: hit.score, index: stats.index.kind, embedder: stats.embedder, auto: auto.embedder.id }));
`;

const THREAD = `import 'fake-indexeddb/auto';
import { parentPort } from 'node:worker_threads';
import { serveMemory, nodeEndpoint } from 'houkai-web/worker';
serveMemory(nodeEndpoint(parentPort));
`;

const THREADED = `import { Worker } from 'node:worker_threads';
import { connectEndpoint, MemoryError } from 'houkai-web';
import { nodeEndpoint } from 'houkai-web/worker';
const worker = new Worker(new URL('./thread.mjs', import.meta.url));
// As docs/node.md shows it: closing the client ends the thread (#52 item 5: the process exits).
const memory = await connectEndpoint(nodeEndpoint(worker), { name: 'threaded', embedder: 'use-lite', onClose: () => worker.terminate() });
await memory.remember('The staging cluster is deploy-stg-2.');
const [hit] = await memory.recall('where do we stage deploys?');
let code = null;
try { await memory.remember(''); } catch (e) { code = e instanceof MemoryError ? e.code : 'not a MemoryError: ' + e; }
await memory.close();
if (hit?.memory.text !== 'The staging cluster is deploy-stg-2.') throw new Error('wrong hit through the thread: ' + hit?.memory.text);
if (code !== 'INVALID_ARGUMENT') throw new Error('the error did not cross the thread typed: ' + code);
console.log(JSON.stringify({ ok: true, thread: hit.memory.text, error: code }));
`;

const TYPES = `import { connectMemory, connectEndpoint, MemoryError, type MemoryClient, type RecallHit } from 'houkai-web';
import { createMemory, type LocalMemory } from 'houkai-web/local';
import { serveMemory, nodeEndpoint } from 'houkai-web/worker';
import { openMemory, openTools, serveMemoryHost, startMemoryHost } from 'houkai-web/extension';
import { dispatchTool } from 'houkai-web/agents';

export async function check(): Promise<string> {
  const remote: MemoryClient = await connectMemory({ name: 'x', models: '/models/', workerUrl: '/houkai/memory.worker.js' });
  const hits: RecallHit[] = await remote.recall('q', { k: 3 });
  const local: LocalMemory = await createMemory({ name: 'y', embedder: 'minilm', minilm: { dtype: 'q8' } });
  const inPopup = await openMemory({ embedder: 'minilm' });
  void [connectEndpoint, nodeEndpoint, serveMemory, openTools, serveMemoryHost, startMemoryHost, dispatchTool, inPopup];
  return hits[0] instanceof MemoryError ? 'never' : String(local.embedder.dim);
}
`;

try {
  const tarball = run('npm', ['pack', '--silent', '--pack-destination', work], root).trim().split('\n').pop();
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'pack-smoke', private: true, type: 'module' }));
  // A plain install: no flags, no .npmrc (transformers.js, whose onnxruntime-node downloads at
  // install time, is an optional peer the package does not pull in).
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', join(work, tarball), 'fake-indexeddb'], work);
  check(!existsSync(join(work, 'node_modules', 'onnxruntime-node')), 'onnxruntime-node was installed');

  writeFileSync(join(work, 'smoke.mjs'), SMOKE);
  process.stdout.write(run('node', ['smoke.mjs'], work));
  writeFileSync(join(work, 'thread.mjs'), THREAD);
  writeFileSync(join(work, 'threaded.mjs'), THREADED);
  process.stdout.write(run('node', ['threaded.mjs'], work, {}, 120_000));

  writeFileSync(join(work, 'types-check.ts'), TYPES);
  const tsc = join(root, 'node_modules', '.bin', 'tsc');
  for (const [module, moduleResolution] of [['NodeNext', 'NodeNext'], ['ESNext', 'Bundler']]) {
    const config = { compilerOptions: { strict: true, skipLibCheck: false, noEmit: true, target: 'ES2022', module, moduleResolution, lib: ['ES2022', 'DOM'], types: [] }, files: ['types-check.ts'] };
    writeFileSync(join(work, 'tsconfig.json'), JSON.stringify(config));
    run(tsc, ['-p', 'tsconfig.json'], work);
  }
  console.log('pack-smoke: the published types compile with strict and skipLibCheck: false (NodeNext, Bundler)');

  const cli = (args, env = {}) => spawnSync('npx', ['--no-install', 'houkai-web', ...args], { cwd: work, encoding: 'utf8', env: { ...process.env, ...env } });
  const models = cli(['models', 'public/models', '--only', 'minilm,use-lite'], { HOUKAI_MODELS_FROM: join(root, 'public', 'models'), HOUKAI_MODELS_NO_HUB: '1' });
  check(models.status === 0, `npx houkai-web models failed: ${models.stderr}`);
  check(existsSync(join(work, 'public/models/Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx')), 'MiniLM not provisioned');
  check(existsSync(join(work, 'public/models/use-lite/model.json')), 'use-lite not provisioned');
  const again = cli(['models', 'public/models', '--only', 'minilm'], { HOUKAI_MODELS_FROM: join(work, 'nowhere'), HOUKAI_MODELS_NO_HUB: '1' });
  check(again.status === 0 && /verified/.test(again.stdout), `a second run should verify the pinned files: ${again.stdout}${again.stderr}`);
  const bad = cli(['models', 'public/models', '--only', 'gpt']);
  check(bad.status === 2 && /unknown model/.test(bad.stderr), 'a bad --only is not refused with exit code 2');
  // The MCP server without its optional SDK: one line naming the install, exit code 1; a bad flag, 2.
  const mcp = cli(['mcp', '--dir', join(work, 'mcp-store')]);
  check(mcp.status === 1 && /npm install @modelcontextprotocol\/sdk@1/.test(mcp.stderr) && mcp.stdout === '', `npx houkai-web mcp without the SDK: ${mcp.status} ${mcp.stderr}`);
  check(cli(['mcp', '--bogus']).status === 2, 'npx houkai-web mcp --bogus is not refused with exit code 2');
  const copied = cli(['worker', 'public/houkai']);
  check(copied.status === 0, `npx houkai-web worker failed: ${copied.stderr}`);
  const files = readdirSync(join(work, 'public/houkai'));
  for (const name of ['memory.worker.js', 'ort-wasm-simd-threaded.asyncify.wasm', 'tfjs-backend-wasm.wasm']) check(files.includes(name), `worker folder lacks ${name}`);
  console.log(`pack-smoke: npx houkai-web models and worker (${files.length} files) work in the user's folder`);
  console.log(`pack-smoke: ${tarball} installs and runs in a clean folder`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
