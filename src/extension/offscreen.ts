/**
 * This repository's extension: the offscreen document, owner of the memory worker
 * (`worker/memory.worker.ts`, the same worker the app uses; see ./host.ts for the rules).
 */
import { serveMemoryHost } from './host.ts';

serveMemoryHost({ worker: new Worker(new URL('../../worker/memory.worker.ts', import.meta.url), { type: 'module', name: 'houkai-memory' }) });
