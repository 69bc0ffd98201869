#!/usr/bin/env node
/**
 * `npm run hosting`: writes the hosting configs for the built app from the header table
 * (headers.mjs): docs/hosting/_headers (Netlify, Cloudflare Pages: copy it into the published
 * folder) and docs/hosting/nginx.conf. `--check` writes nothing and exits 1 when either file is
 * out of date with the table (test/hosting.test.ts runs the same comparison).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderHeadersFile, renderNginx } from './headers.mjs';

const out = fileURLToPath(new URL('../../docs/hosting/', import.meta.url));
const files = { '_headers': renderHeadersFile(), 'nginx.conf': renderNginx() };
const check = process.argv.includes('--check');
let stale = 0;
mkdirSync(out, { recursive: true });
for (const [name, text] of Object.entries(files)) {
  const path = join(out, name);
  let current = null;
  try {
    current = readFileSync(path, 'utf8');
  } catch {}
  if (current === text) continue;
  stale++;
  if (check) console.error(`hosting: docs/hosting/${name} is out of date; run npm run hosting`);
  else writeFileSync(path, text);
}
if (check) process.exit(stale ? 1 : 0);
console.log(`hosting: docs/hosting/_headers and nginx.conf ${stale ? 'written' : 'already up to date'}`);
