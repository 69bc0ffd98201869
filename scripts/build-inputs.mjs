/**
 * What the app build is made from, and the stamp a build leaves in its output, so `npm start`
 * rebuilds only when something changed since the last build ("built when stale").
 *
 * The fingerprint is a SHA-256 over the path and content of every input file: the sources, the
 * public files (the model files copied in by the asset scripts included), the build's own
 * configuration and the lockfile. Content, not modification times: a checkout or a copy that
 * changes nothing does not trigger a rebuild, and an edit always does.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Folders and files (relative to the repository) the app build reads. */
const INPUTS = [
  'src',
  'worker',
  'public',
  'index.html',
  'vite.config.ts',
  'svelte.config.js',
  'tsconfig.json',
  'package.json',
  'package-lock.json',
  'scripts/build-inputs.mjs',
  'scripts/extension-build.ts',
  'scripts/hnswlib-no-eval.mjs',
  'scripts/hosting',
];

/** The build's output folder for a Vite mode (`e2e` adds the test pages and builds apart). */
export function outDirFor(mode) {
  return mode === 'e2e' ? 'dist/e2e' : 'dist/app';
}

/** The stamp's file name inside the output folder (a dotfile: never served, never precached). */
export const STAMP = '.build-stamp.json';

function walk(path, out) {
  if (!existsSync(path)) return;
  const stat = statSync(path);
  if (stat.isFile()) {
    out.push(path);
    return;
  }
  if (!stat.isDirectory()) return;
  for (const name of readdirSync(path).sort()) {
    if (name === 'node_modules' || name === '.DS_Store') continue;
    walk(join(path, name), out);
  }
}

/** The fingerprint of the inputs of a build in `mode`. */
export function inputsFingerprint(mode = 'production', root = ROOT) {
  const files = [];
  for (const input of [...INPUTS, ...(mode === 'e2e' ? ['e2e'] : [])]) walk(join(root, input), files);
  const hash = createHash('sha256');
  hash.update(`mode:${mode}\0`);
  for (const file of files.sort()) {
    hash.update(relative(root, file).split(sep).join('/'));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return { fingerprint: hash.digest('hex'), files: files.length };
}

/** The stamp the last build in `outDir` (absolute, or relative to the repository) left, or null. */
export function readStamp(outDir) {
  try {
    return JSON.parse(readFileSync(resolve(ROOT, outDir, STAMP), 'utf8'));
  } catch {
    return null;
  }
}

export function writeStamp(outDir, stamp) {
  writeFileSync(resolve(ROOT, outDir, STAMP), `${JSON.stringify(stamp, null, 2)}\n`);
}

/** Why the build in `outDir` must be redone for `mode`, or null when it is current. */
export function staleness(mode = 'production', root = ROOT) {
  const outDir = join(root, outDirFor(mode));
  const stamp = readStamp(outDir);
  if (!stamp) return { reason: 'no build yet', ...inputsFingerprint(mode, root) };
  const now = inputsFingerprint(mode, root);
  if (stamp.mode !== mode) return { reason: `the last build was for ${stamp.mode}`, ...now };
  if (stamp.fingerprint !== now.fingerprint) return { reason: 'sources changed since the last build', ...now };
  if (!existsSync(join(outDir, 'index.html')) || !existsSync(join(outDir, 'sw.js'))) return { reason: 'the last build is incomplete', ...now };
  return null;
}
