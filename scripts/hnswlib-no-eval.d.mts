/** Types for hnswlib-no-eval.mjs. */
export declare const HNSWLIB_GLUE: RegExp;
/** The hnswlib-wasm glue without code built from strings. @throws when the glue is not the expected one. */
export declare function removeHnswlibEval(code: string): string;
/** The rewrite as a Vite (Rollup) plugin: the app's and the extension's worker builds. */
export declare function hnswlibWithoutEval(): { name: string; transform(code: string, id: string): { code: string; map: null } | null };
