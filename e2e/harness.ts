// Exposes the client to the Playwright specs, and registers the app's service worker so the
// offline scenarios run exactly as the product does.
import { registerSW } from 'virtual:pwa-register';
import { connectMemory, MemoryError, type MemoryClient, type ConnectOptions } from '../src/index.ts';

declare global {
  interface Window {
    houkai: {
      connect(options?: ConnectOptions): Promise<MemoryClient>;
      /** The same, but in a dedicated worker of this page's own (not the shared one): an independent owner of the store. */
      connectDedicated(options?: ConnectOptions): Promise<MemoryClient>;
      MemoryError: typeof MemoryError;
      swReady: Promise<boolean>;
      progress: unknown[];
    };
  }
}

const status = document.getElementById('status')!;

const swReady: Promise<boolean> = 'serviceWorker' in navigator
  ? new Promise((resolve) => {
      registerSW({ immediate: true, onRegisteredSW: () => void navigator.serviceWorker.ready.then(() => resolve(true)), onRegisterError: () => resolve(false) });
    })
  : Promise.resolve(false);

window.houkai = {
  connect: (options) => connectMemory({ embedder: 'use-lite', ...options }),
  connectDedicated: (options) =>
    connectMemory({
      embedder: 'use-lite',
      worker: () => new Worker(new URL('../worker/memory.worker.ts', import.meta.url), { type: 'module', name: 'houkai-web-dedicated' }),
      ...options,
    }),
  MemoryError,
  swReady,
  progress: [],
};
status.textContent = 'ready';
