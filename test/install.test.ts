/**
 * Installing the project the way the README and CI do: `npm ci` on the committed lockfile, with
 * npm 11's install-script policy and no configuration npm does not know.
 *
 * - `npm ci` refuses a lockfile in which a dependency (optional ones included: rollup's
 *   other-platform binaries) does not resolve to a locked package. The check below is the same
 *   resolution npm does (Node's: the nearest `node_modules/<name>` walking up), over the lock.
 * - No project `.npmrc` key that npm 11 warns about (`Unknown project config`).
 * - Every installed dependency with an install script is covered by `allowScripts`, and
 *   onnxruntime-node's download script is denied.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

interface LockedPackage {
  version?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(join(root, path), 'utf8')) as T;
}

/** Where Node (and npm's tree) finds `name` from the package at `from` ('' is the root). */
function resolveLocked(packages: Record<string, LockedPackage>, from: string, name: string): string | null {
  let dir = from;
  for (;;) {
    const candidate = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (dir === '') return null;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut < 0 ? '' : dir.slice(0, cut);
  }
}

describe('install', () => {
  it('the lockfile resolves every dependency, optional ones included (what npm ci checks)', () => {
    const lock = readJson<{ lockfileVersion: number; packages: Record<string, LockedPackage> }>('package-lock.json');
    expect(lock.lockfileVersion).toBe(3);
    const missing: string[] = [];
    for (const [path, pkg] of Object.entries(lock.packages)) {
      if (pkg.link) continue;
      for (const name of [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})]) {
        if (!resolveLocked(lock.packages, path, name)) missing.push(`${path || '(root)'} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('npm reads the project configuration without warnings', () => {
    const result = spawnSync('npm', ['config', 'get', 'registry'], { cwd: root, encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stderr).not.toMatch(/project config/i);
  });

  it('allowScripts covers every install script and keeps onnxruntime-node’s download skipped', () => {
    const pkg = readJson<{ allowScripts?: Record<string, boolean> }>('package.json');
    expect(pkg.allowScripts?.['onnxruntime-node']).toBe(false);
    const out = execFileSync('npm', ['install-scripts', 'ls'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(out).toMatch(/No packages with unreviewed install scripts/);
  });
});
