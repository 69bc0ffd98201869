import { serveMemoryHost } from 'houkai-web/extension';

// The one owner of the memory for the whole extension: the prebuilt worker copied into houkai/.
serveMemoryHost({ worker: 'houkai/memory.worker.js' });
