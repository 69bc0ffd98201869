/**
 * `houkai-web/extension`: one memory for a whole MV3 extension. The background service worker
 * calls `startMemoryHost()`; the offscreen document calls `serveMemoryHost({ worker })` and owns
 * the memory worker; the popup, other extension pages and content scripts call `openMemory()`
 * (or `openTools()`), each scoped by who it is (content scripts: untrusted, namespace `web`).
 */
export { startMemoryHost, type MemoryHostStarter } from './starter.ts';
export { serveMemoryHost, classify, type MemoryHostOptions, type Caller } from './host.ts';
export { openMemory, openTools } from './connect.ts';
export { MEMORY_PORT, TOOLS_PORT, PAGE_NAMESPACE, PAGE_TAG } from './protocol.ts';
