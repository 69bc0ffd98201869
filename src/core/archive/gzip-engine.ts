/**
 * The port between the archive code and a gzip implementation. `gzip.ts` adds what archives need
 * on top (magic and trailer checks, line splitting, the native fast path); the raw streaming
 * inflate and deflate come from an engine the composition root installs (`adapters/gzip-fflate.ts`).
 */

/** A streaming codec: input goes in by `push`, output comes out through the callback it was made with. */
export interface StreamCodec {
  push(chunk: Uint8Array, final: boolean): void;
}

export interface GzipEngine {
  /**
   * An inflater that follows concatenated gzip members: `onData` receives each piece of output,
   * `onMember(offset)` is called when the next member's header starts at input offset `offset`.
   */
  inflater(onData: (data: Uint8Array) => void, onMember: (offset: number) => void): StreamCodec;
  /** A single-member gzip deflater (no file name, mtime 0) at `level` 0–9. */
  deflater(level: number, onData: (data: Uint8Array) => void): StreamCodec;
}

let installed: GzipEngine | null = null;

/** Sets the engine every archive read and write uses (idempotent; the last one wins). */
export function installGzipEngine(engine: GzipEngine): void {
  installed = engine;
}

/** The installed engine. @throws Error when no composition root installed one (a wiring mistake). */
export function gzipEngine(): GzipEngine {
  if (!installed) throw new Error('No gzip engine is installed: call installGzipEngine() (createMemory installs fflate)');
  return installed;
}
