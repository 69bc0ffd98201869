/** Types for build-inputs.mjs. */
export declare const ROOT: string;
export declare const STAMP: string;
export declare function outDirFor(mode: string): string;
export interface BuildStamp {
  mode: string;
  fingerprint: string;
  files: number;
  builtAt: string;
}
export declare function inputsFingerprint(mode?: string, root?: string): { fingerprint: string; files: number };
export declare function readStamp(outDir: string): BuildStamp | null;
export declare function writeStamp(outDir: string, stamp: BuildStamp): void;
export declare function staleness(mode?: string, root?: string): { reason: string; fingerprint: string; files: number } | null;
