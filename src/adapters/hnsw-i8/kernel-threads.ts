/**
 * Helper threads for the threaded kernel build: each is a worker holding another instance of the
 * kernel module on the index's shared memory, parked in the kernel's `helper_loop` until a batch
 * comes (kernel.c, "Batches"). Node uses worker_threads; a browser uses a module worker
 * (kernel-helper.worker.ts), which needs a cross-origin-isolated worker to share memory with.
 * Anything missing means no helpers: the batches then run on the calling thread alone.
 */

/** What a helper needs: the module, the memory, its thread number and stack, and where to say it died. */
export interface HelperStart {
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  thread: number;
  stackTop: number;
  deadAt: number;
}

interface Handle {
  terminate(): void;
}

interface NodeWorkerThreads {
  Worker: new (code: string, options: { eval: true; workerData: HelperStart; name?: string }) => Handle & { unref(): void; on(event: string, listener: () => void): void };
}

interface NodeOs {
  availableParallelism?(): number;
  cpus(): unknown[];
}

let nodeThreads: NodeWorkerThreads | null = null;
let nodeCores = 1;

function isNode(): boolean {
  return typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';
}

/** A worker scope (dedicated or shared), where a thread may block in Atomics.wait. */
function inWorkerScope(): boolean {
  const scope = (globalThis as { WorkerGlobalScope?: abstract new () => unknown }).WorkerGlobalScope;
  return typeof scope === 'function' && globalThis instanceof scope;
}

/** Whether this realm can run helper threads (shared memory, a thread that may wait, workers). */
export function threadsAvailable(): boolean {
  if (typeof SharedArrayBuffer !== 'function' || typeof Atomics !== 'object') return false;
  if (isNode()) return nodeThreads !== null;
  return (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true && typeof Worker === 'function' && inWorkerScope();
}

/** Finds what Node needs to start helpers (once); the cores this platform reports. */
export function prepareThreads(): number {
  if (isNode()) {
    if (!nodeThreads) {
      // process.getBuiltinModule (Node ≥ 20.16): no import() a browser bundle would have to skip.
      const get = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process?.getBuiltinModule;
      if (typeof get !== 'function') return 1;
      nodeThreads = (get('node:worker_threads') as NodeWorkerThreads | undefined) ?? null;
      const os = get('node:os') as NodeOs | undefined;
      nodeCores = os ? (os.availableParallelism?.() ?? os.cpus().length) : 1;
    }
    return nodeCores;
  }
  return (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 1;
}

/** The helper's body in Node (an eval'd CommonJS worker). */
const NODE_HELPER = `
const { workerData: w } = require('node:worker_threads');
try {
  const instance = new WebAssembly.Instance(w.module, { env: { memory: w.memory, admit: () => 0 } });
  instance.exports.__stack_pointer.value = w.stackTop;
  instance.exports.helper_loop(w.thread);
} catch (error) {
  Atomics.or(new Int32Array(w.memory.buffer), w.deadAt >> 2, 1 << w.thread);
}
`;

/** The running helpers of one kernel instance. */
export class Helpers {
  private readonly handles: Handle[] = [];

  constructor(module: WebAssembly.Module, memory: WebAssembly.Memory, stacks: number[], deadAt: number) {
    stacks.forEach((stackTop, i) => {
      const start: HelperStart = { module, memory, thread: i + 1, stackTop, deadAt };
      try {
        this.handles.push(isNode() ? startNode(start) : startBrowser(start));
      } catch {
        // No helper: the batches are done by the threads that did start.
      }
    });
  }

  terminate(): void {
    for (const handle of this.handles.splice(0)) handle.terminate();
  }
}

function startNode(start: HelperStart): Handle {
  const worker = new nodeThreads!.Worker(NODE_HELPER, { eval: true, workerData: start, name: 'houkai-index-helper' });
  worker.unref();
  worker.on('error', () => undefined);
  return worker;
}

function startBrowser(start: HelperStart): Handle {
  const worker = new Worker(new URL('./kernel-helper.worker.ts', import.meta.url), { type: 'module', name: 'houkai-index-helper' });
  worker.addEventListener('error', () => undefined);
  worker.postMessage(start);
  return worker;
}
