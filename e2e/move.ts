// Starts e2e/move.worker.ts and hands its API to e2e/opfs-crash.spec.ts as `window.mover`.
import * as Comlink from 'comlink';
import type { moverApi } from './move.worker.ts';

declare global {
  interface Window {
    mover: Comlink.Remote<typeof moverApi>;
  }
}

window.mover = Comlink.wrap<typeof moverApi>(new Worker(new URL('./move.worker.ts', import.meta.url), { type: 'module', name: 'houkai-mover' }));
document.getElementById('status')!.textContent = 'ready';
