/** comlink ships its Node adapter at a deep path whose `.mjs` has no declaration TypeScript finds. */
declare module 'comlink/dist/esm/node-adapter.mjs' {
  import type { Endpoint } from 'comlink';
  /** A Node `worker_threads` Worker or port (EventEmitter style) as a comlink endpoint. */
  export default function nodeEndpoint(port: object): Endpoint;
}
