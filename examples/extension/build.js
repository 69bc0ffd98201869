// The MV3 extension into dist/ (load it unpacked from there). esbuild bundles our scripts; the
// memory worker is the package's prebuilt one, copied by `houkai-web worker dist/houkai`.
import { build } from 'esbuild';
import { cpSync } from 'node:fs';

cpSync('static', 'dist', { recursive: true });
await build({ entryPoints: ['src/background.js', 'src/offscreen.js', 'src/popup.js'], bundle: true, format: 'esm', outdir: 'dist' });
// Content scripts are classic scripts, not modules.
await build({ entryPoints: ['src/content.js'], bundle: true, format: 'iife', outdir: 'dist' });
