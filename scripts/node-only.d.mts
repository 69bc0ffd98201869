import type { Plugin } from 'vite';
/** The browser builds' stub for modules only Node loads (node-only.mjs). */
export function nodeOnly(): Plugin;
