/**
 * A helper thread of the threaded index kernel in a browser (kernel-threads.ts): instantiates the
 * kernel on the index's shared memory with its own stack, then works on batches until the index
 * stops it. A trap marks it dead in the shared memory, so the index's thread does its item.
 */
import type { HelperStart } from './kernel-threads.ts';

addEventListener('message', (event: MessageEvent<HelperStart>) => {
  const w = event.data;
  try {
    const instance = new WebAssembly.Instance(w.module, { env: { memory: w.memory, admit: () => 0 } });
    const x = instance.exports as unknown as { __stack_pointer: WebAssembly.Global; helper_loop(t: number): void };
    x.__stack_pointer.value = w.stackTop;
    x.helper_loop(w.thread);
  } catch {
    Atomics.or(new Int32Array(w.memory.buffer), w.deadAt >> 2, 1 << w.thread);
  }
  close();
});
