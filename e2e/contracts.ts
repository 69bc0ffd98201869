// Starts the contracts worker (e2e/contracts.worker.ts) and keeps what it reports in
// `window.contracts`, for e2e/contracts.spec.ts.
import type { CaseResult } from './contracts.worker.ts';

declare global {
  interface Window {
    contracts: { cases: CaseResult[]; done: Promise<CaseResult[]> };
  }
}

const status = document.getElementById('status')!;
const cases: CaseResult[] = [];
const worker = new Worker(new URL('./contracts.worker.ts', import.meta.url), { type: 'module', name: 'houkai-contracts' });
window.contracts = {
  cases,
  done: new Promise((resolve) => {
    worker.onmessage = (event: MessageEvent<{ kind: 'case'; result: CaseResult } | { kind: 'done'; results: CaseResult[] }>) => {
      if (event.data.kind === 'case') {
        cases.push(event.data.result);
        status.textContent = `${cases.length} run, ${cases.filter((c) => !c.ok).length} failed`;
      } else {
        status.textContent = `done: ${event.data.results.length} run, ${event.data.results.filter((c) => !c.ok).length} failed`;
        resolve(event.data.results);
      }
    };
    worker.onerror = (event) => resolve([{ name: 'worker', ok: false, ms: 0, error: event.message }]);
  }),
};
