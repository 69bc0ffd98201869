#!/usr/bin/env node
/**
 * `npm start`: the production build of the app, served with its real headers.
 *
 * 1. Builds dist/app when it is stale: no build yet, the last build was another mode, or any
 *    input changed since (scripts/build-inputs.mjs fingerprints the sources, public files,
 *    build config and lockfile; the build leaves the fingerprint beside its output).
 * 2. Serves dist/app (scripts/serve.mjs) with the header table of scripts/hosting/headers.mjs:
 *    CSP, cross-origin isolation, no framing. The service worker makes it installable and
 *    offline after the first visit.
 * 3. Prints the URL: http://127.0.0.1:4173/ by default; PORT and HOST (or --port, --host) change
 *    it. A port in use is an error, not a move to another port: the browser keeps the app's
 *    memories per origin, and another port would open with none of them.
 *
 * The model assets are copied into public/ by the `npm start` script before this runs.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ROOT, outDirFor, staleness } from './build-inputs.mjs';
import { cliOptions, serveUntilStopped } from './serve.mjs';

let options;
try {
  options = cliOptions(process.argv.slice(2), { port: process.env.PORT ?? '4173', host: process.env.HOST ?? '127.0.0.1' });
} catch (error) {
  console.error(`start: ${error.message}`);
  process.exit(2);
}

const stale = staleness('production');
if (stale) {
  console.log(`start: building the app (${stale.reason})…`);
  const vite = join(dirname(createRequire(join(ROOT, 'package.json')).resolve('vite/package.json')), 'bin', 'vite.js');
  const built = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) {
    console.error(`start: the build failed (exit ${built.status ?? built.signal})`);
    process.exit(1);
  }
  if (staleness('production')) {
    console.error('start: the build finished but left no current stamp in dist/app');
    process.exit(1);
  }
} else {
  console.log('start: dist/app is up to date with the sources');
}

await serveUntilStopped({ dir: join(ROOT, outDirFor('production')), port: options.port, host: options.host }, 'Houkai Web (production build, works offline after the first visit):');
