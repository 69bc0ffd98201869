/** Types for serve.mjs. */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
export interface ServeOptions {
  dir: string;
  port?: number;
  host?: string;
  /** Answers a path with other bytes (tests deploy a "second build" this way). */
  override?: (pathname: string) => Buffer | undefined;
}
export declare function appHandler(dir: string, options?: Pick<ServeOptions, 'override'>): (req: IncomingMessage, res: ServerResponse) => void;
export declare function serve(options: ServeOptions): Promise<{ server: Server; url: string }>;
export declare function cliOptions<T extends Record<string, string>>(argv: string[], defaults: T): T & { port: number };
export declare function serveUntilStopped(options: { dir: string; port: number; host: string }, label: string): Promise<Server>;
