/**
 * Extension pages (and their workers) may not evaluate strings as code: MV3 allows
 * `'wasm-unsafe-eval'` but never `'unsafe-eval'`, and strict sites' CSPs neither. hnswlib-wasm's
 * Emscripten glue builds two kinds of functions from source text at run time (Embind's invokers
 * for C++ functions and methods, and its emval method callers): each is replaced here by a closure
 * doing the same work (what Emscripten's DYNAMIC_EXECUTION=0 would generate), so the index runs
 * under such a CSP. Used by the app's and the extension's Vite builds (`hnswlibWithoutEval`) and
 * the prebuilt worker's (scripts/build-worker.mjs). A build fails if the glue no longer has these
 * exact lines.
 */

/** The file of hnswlib-wasm that holds the glue. */
export const HNSWLIB_GLUE = /hnswlib-wasm\/dist\/hnswlib-[0-9a-f]+\.js$/;

const EMBIND_INVOKER = '      return newFunc(Function, args1).apply(null, args2);';
const EMBIND_INVOKER_CLOSURE = `      var houkaiArity = argCount - 2;
      var houkaiName = humanName;
      return function () {
        if (arguments.length !== houkaiArity) {
          throwBindingError('function ' + houkaiName + ' called with ' + arguments.length + ' arguments, expected ' + houkaiArity + ' args!');
        }
        var destructors = needsDestructorStack ? [] : null;
        var wired = [];
        if (isClassMethodFunc) wired.push(argTypes[1].toWireType(destructors, this));
        for (var i = 0; i < houkaiArity; ++i) wired.push(argTypes[i + 2].toWireType(destructors, arguments[i]));
        var rv = cppInvokerFunc.apply(null, [cppTargetFunc].concat(wired));
        if (needsDestructorStack) {
          runDestructors(destructors);
        } else {
          for (var j = isClassMethodFunc ? 1 : 2; j < argTypes.length; ++j) {
            if (argTypes[j].destructorFunction !== null) argTypes[j].destructorFunction(wired[j === 1 ? 0 : (isClassMethodFunc ? 1 : 0) + j - 2]);
          }
        }
        if (returns) return argTypes[0].fromWireType(rv);
      };`;
const EMVAL_CALLER = '      var invokerFunction = newFunc(Function, params).apply(null, args);';
const EMVAL_CALLER_CLOSURE = `      var invokerFunction = function (handle, name, destructors, argsPointer) {
        var values = [];
        var offset = 0;
        for (var i = 0; i < argCount - 1; ++i) {
          values.push(types[i + 1].readValueFromPointer(argsPointer + offset));
          offset += types[i + 1]['argPackAdvance'];
        }
        var rv = handle[name].apply(handle, values);
        for (var k = 0; k < argCount - 1; ++k) {
          if (types[k + 1]['deleteObject']) types[k + 1].deleteObject(values[k]);
        }
        if (!retType.isVoid) return retType.toWireType(destructors, rv);
      };`;

/** The hnswlib-wasm glue without code built from strings. @throws when the glue is not the expected one. */
export function removeHnswlibEval(code) {
  for (const line of [EMBIND_INVOKER, EMVAL_CALLER]) {
    if (code.split(line).length !== 2) throw new Error(`hnswlib-wasm's glue changed: expected exactly one line ${JSON.stringify(line.trim())}`);
  }
  return code.replace(EMBIND_INVOKER, () => EMBIND_INVOKER_CLOSURE).replace(EMVAL_CALLER, () => EMVAL_CALLER_CLOSURE);
}

/** The rewrite as a Vite (Rollup) plugin: the app's and the extension's worker builds. */
export function hnswlibWithoutEval() {
  return {
    name: 'houkai-hnswlib-without-eval',
    transform(code, id) {
      if (!HNSWLIB_GLUE.test(id.split('?')[0])) return null;
      return { code: removeHnswlibEval(code), map: null };
    },
  };
}
