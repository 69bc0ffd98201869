#!/usr/bin/env node
// Proves `npm pack` of this project installs and imports cleanly in another folder, the way an
// external test harness uses it: Node 20, fake-indexeddb, the bundled use-lite model, HNSW.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'houkai-pack-'));
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
try {
  const tarball = run('npm', ['pack', '--silent', '--pack-destination', work], root).trim().split('\n').pop();
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'pack-smoke', private: true, type: 'module' }));
  writeFileSync(join(work, '.npmrc'), 'onnxruntime-node-install=skip\n');
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', join(work, tarball), 'fake-indexeddb'], work);
  writeFileSync(
    join(work, 'smoke.mjs'),
    `import 'fake-indexeddb/auto';
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
console.log(JSON.stringify({ ok: true, first: hit.memory.text, score: hit.score, index: stats.index.kind, embedder: stats.embedder }));
`,
  );
  process.stdout.write(run('node', ['smoke.mjs'], work));
  console.log(`pack-smoke: ${tarball} installs and imports in a clean folder`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
