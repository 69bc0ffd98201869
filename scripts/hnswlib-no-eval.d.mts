/** Types for hnswlib-no-eval.mjs. */
export declare const HNSWLIB_GLUE: RegExp;
/** The hnswlib-wasm glue without code built from strings. @throws when the glue is not the expected one. */
export declare function removeHnswlibEval(code: string): string;
