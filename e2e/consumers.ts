// The consumer matrix's set-up (e2e/consumers.spec.ts): the packed tarball installed into a fresh
// folder per template of examples/, built with that template's own `npm run build`, as a user
// who copied the folder would.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Each web template: the folder its build leaves to serve, and where that site serves the models. */
export const WEB_EXAMPLES = {
  vite: { serve: 'dist', models: '/models/' },
  webpack: { serve: 'site', models: '/models/' },
  esbuild: { serve: 'site', models: '/models/' },
  rollup: { serve: 'site', models: '/assets/models/' },
  'no-bundler': { serve: '.', models: '/models/' },
} as const;
export type WebExample = keyof typeof WEB_EXAMPLES;

const run = (cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });

let packed: { work: string; tarball: string } | null = null;

/** `npm pack` of this repository (its prepack builds the library and the prebuilt worker), once per run. */
export function tarball(): { work: string; tarball: string } {
  if (packed) return packed;
  const work = mkdtempSync(join(tmpdir(), 'houkai-consumers-'));
  const name = run('npm', ['pack', '--silent', '--pack-destination', work], ROOT).trim().split('\n').pop()!;
  packed = { work, tarball: join(work, name) };
  return packed;
}

/**
 * Copies examples/<name> into a fresh folder, installs the tarball and the template's own
 * dependencies, and runs its build. Models come from this repository's folder (`npm run models`
 * put them there; the CLI checks their pins), so the run needs no network for them.
 * @returns the template's folder.
 */
export function buildExample(name: string): string {
  const { work, tarball: file } = tarball();
  const dir = join(work, name);
  cpSync(join(ROOT, 'examples', name), dir, { recursive: true });
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', file], dir);
  run('npm', ['run', 'build'], dir, { HOUKAI_MODELS_FROM: join(ROOT, 'public', 'models'), HOUKAI_MODELS_NO_HUB: '1' });
  return dir;
}

/** The hashes of a page's inline scripts (an import map), for a CSP that allows exactly them. */
export function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`);
}

/**
 * The policy the built pages are served with: what a careful site sends. No 'unsafe-eval', no
 * `blob:`, nothing from another origin; WebAssembly may compile.
 */
export function strictCsp(pageHtml: string): string {
  return [
    "default-src 'self'",
    ["script-src 'self' 'wasm-unsafe-eval'", ...inlineScriptHashes(pageHtml)].join(' '),
    "worker-src 'self'",
    "connect-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "object-src 'none'",
    "base-uri 'none'",
  ].join('; ');
}
