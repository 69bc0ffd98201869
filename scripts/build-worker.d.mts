/** Types for build-worker.mjs. */
export declare const WORKER_OUT: string;
export declare function stringEvaluations(code: string): string[];
export declare function forOtherBundlers(code: string): string;
export declare function buildWorker(options?: { quiet?: boolean; out?: string }): Promise<void>;
