/** Types for headers.mjs (the app's one header table). */
export declare const CSP: Readonly<Record<string, readonly string[]>>;
export declare function cspValue(options?: { for?: 'document' | 'meta' | 'service-worker' | 'worker'; meta?: boolean }): string;
export declare const WORKER_DIR: string;
export declare const ISOLATION: Readonly<Record<string, string>>;
export interface HeaderRule {
  path: string;
  why: string;
  headers: Record<string, string>;
}
export declare const RULES: readonly HeaderRule[];
export declare function matches(pattern: string, pathname: string): boolean;
export declare function headersFor(pathname: string): Record<string, string>;
export declare const DEV_HEADERS: Readonly<Record<string, string>>;
export declare function renderHeadersFile(): string;
export declare function renderNginx(): string;
export declare function syncOrigins(value?: string): string[];
