/**
 * The names a `run_js` script may use without declaring them, for the analysis that follows what
 * its values are built from: the prelude's calls, which it instruments, and the built-ins it knows
 * the behaviour of. A script that names anything else (`globalThis`, `eval`, `Function`, `Reflect`,
 * `Proxy`, `Symbol`, a name of its own it never declared) is not analysed: it runs as every script
 * did before, all it reads labelling all it does.
 */

/** The prelude's functions whose calls are the script's call sites. */
export const PRELUDE_CALLS = new Set(['callTool', 'tools', 'searchTools', 'describeTools']);

/**
 * What the instrumented script names the host's per-site functions by. A script that uses any
 * name starting with it is not analysed, so no script can reach them by name.
 */
export const RESERVED_PREFIX = '__tw';

/** Globals that are plain values, usable anywhere but never assigned. */
export const VALUE_GLOBALS = new Set(['undefined', 'NaN', 'Infinity']);

/**
 * Built-in functions whose result is a primitive made from their arguments (and which call no
 * script code but their arguments' own conversions): usable as a callee, or passed to a call.
 */
export const PURE_FUNCTIONS = new Set([
  'String', 'Number', 'Boolean', 'BigInt', 'parseInt', 'parseFloat', 'isNaN', 'isFinite',
  'encodeURI', 'encodeURIComponent', 'decodeURI', 'decodeURIComponent', 'escape', 'unescape',
]);

/** Built-in constructors a script may call with `new` (not `Promise`: a promise it settles itself is not followed). */
export const NEW_GLOBALS = new Set([
  'Object', 'Array', 'Date', 'RegExp', 'Map', 'Set', 'WeakMap', 'WeakSet', 'Error', 'TypeError', 'RangeError',
  'SyntaxError', 'ReferenceError', 'EvalError', 'URIError', 'AggregateError', 'ArrayBuffer', 'DataView', 'Int8Array',
  'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array',
  'Float64Array', 'BigInt64Array', 'BigUint64Array', 'String', 'Number', 'Boolean',
]);

/** Every built-in a script may name: as a callee, after `new`, or by a static member (`Math.max`). */
export const NAMESPACE_GLOBALS = new Set([...PURE_FUNCTIONS, ...NEW_GLOBALS, 'Math', 'JSON', 'Promise', 'InternalError']);

/** Static members of a built-in whose result is a primitive made from the arguments, which they do not change. */
export const PRIMITIVE_MEMBERS = new Set([
  'Math.abs', 'Math.acos', 'Math.acosh', 'Math.asin', 'Math.asinh', 'Math.atan', 'Math.atan2', 'Math.atanh', 'Math.cbrt',
  'Math.ceil', 'Math.clz32', 'Math.cos', 'Math.cosh', 'Math.exp', 'Math.expm1', 'Math.floor', 'Math.fround', 'Math.hypot',
  'Math.imul', 'Math.log', 'Math.log10', 'Math.log1p', 'Math.log2', 'Math.max', 'Math.min', 'Math.pow', 'Math.random',
  'Math.round', 'Math.sign', 'Math.sin', 'Math.sinh', 'Math.sqrt', 'Math.tan', 'Math.tanh', 'Math.trunc',
  'JSON.stringify', 'Array.isArray', 'Number.isInteger', 'Number.isFinite', 'Number.isNaN', 'Number.isSafeInteger',
  'Number.parseFloat', 'Number.parseInt', 'Object.is', 'Date.now', 'Date.parse', 'Date.UTC', 'String.fromCharCode',
  'String.fromCodePoint', 'Object.hasOwn',
]);

/** Static members of a built-in that change none of their arguments: what they answer is built from, and may hold, what they are given. */
export const ALIASING_MEMBERS = new Set(['Object.keys', 'Object.values', 'Object.entries', 'Object.getOwnPropertyNames', 'Object.fromEntries', 'Array.of']);

/**
 * Static members of a built-in a script may call besides those above, each answering a value of
 * the script's own or a new one built from its arguments (or a promise of one), never a built-in's
 * object: not `Object.getPrototypeOf`, which answers a prototype every object of its kind shares.
 * A call of any other static member makes the analysis give up.
 */
export const OTHER_STATIC_CALLS = new Set([
  'JSON.parse', 'Object.assign', 'Object.create', 'Object.defineProperty', 'Object.defineProperties', 'Object.freeze',
  'Object.seal', 'Object.preventExtensions', 'Object.isFrozen', 'Object.isSealed', 'Object.isExtensible',
  'Object.setPrototypeOf', 'Object.getOwnPropertyDescriptor', 'Object.getOwnPropertyDescriptors', 'Object.groupBy',
  'Map.groupBy', 'Array.from', 'Promise.all', 'Promise.allSettled', 'Promise.any', 'Promise.race', 'Promise.resolve',
  'Promise.reject', 'String.raw', 'ArrayBuffer.isView',
]);

/**
 * Member names the analysis does not follow, on a built-in or on any value: the ways to a
 * prototype, a constructor or an accessor.
 */
export const FORBIDDEN_MEMBERS = new Set([
  'prototype', 'constructor', '__proto__', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__',
  'withResolvers', 'caller', 'arguments',
]);

/**
 * The names under which the sandbox's built-in prototypes hold an object or a function (a method,
 * or an accessor that may answer an object). A script that reads one of them as a value (not
 * calling it) reads it through the host's `read` helper, which answers `undefined` for an object
 * the value inherits: so no built-in object ever reaches the script as a value, and none can be
 * changed, nor carry data from one place of the script to another. `test/flows/script-deps.test.ts`
 * checks the list against the sandbox's own built-ins.
 */
export const PROTO_OBJECT_NAMES = new Set([
  '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__', '__proto__', 'add', 'anchor', 'apply',
  'arguments', 'at', 'big', 'bind', 'blink', 'bold', 'buffer', 'call', 'caller', 'catch', 'charAt', 'charCodeAt', 'clear',
  'codePointAt', 'compile', 'concat', 'constructor', 'copyWithin', 'delete', 'deref', 'difference', 'drop', 'endsWith',
  'entries', 'every', 'exec', 'fill', 'filter', 'finally', 'find', 'findIndex', 'findLast', 'findLastIndex', 'fixed', 'flat',
  'flatMap', 'fontcolor', 'fontsize', 'forEach', 'get', 'getBigInt64', 'getBigUint64', 'getDate', 'getDay', 'getFloat16',
  'getFloat32', 'getFloat64', 'getFullYear', 'getHours', 'getInt16', 'getInt32', 'getInt8', 'getMilliseconds', 'getMinutes',
  'getMonth', 'getOrInsert', 'getOrInsertComputed', 'getSeconds', 'getTime', 'getTimezoneOffset', 'getUTCDate', 'getUTCDay',
  'getUTCFullYear', 'getUTCHours', 'getUTCMilliseconds', 'getUTCMinutes', 'getUTCMonth', 'getUTCSeconds', 'getUint16',
  'getUint32', 'getUint8', 'getYear', 'grow', 'has', 'hasOwnProperty', 'includes', 'indexOf', 'intersection',
  'isDisjointFrom', 'isPrototypeOf', 'isSubsetOf', 'isSupersetOf', 'isWellFormed', 'italics', 'join', 'keys',
  'lastIndexOf', 'link', 'localeCompare', 'map', 'match', 'matchAll', 'next', 'normalize', 'padEnd', 'padStart', 'pop',
  'propertyIsEnumerable', 'prototype', 'push', 'reduce', 'reduceRight', 'register', 'repeat', 'replace', 'replaceAll',
  'resize', 'return', 'reverse', 'search', 'set', 'setBigInt64', 'setBigUint64', 'setDate', 'setFloat16', 'setFloat32',
  'setFloat64', 'setFullYear', 'setHours', 'setInt16', 'setInt32', 'setInt8', 'setMilliseconds', 'setMinutes', 'setMonth',
  'setSeconds', 'setTime', 'setUTCDate', 'setUTCFullYear', 'setUTCHours', 'setUTCMilliseconds', 'setUTCMinutes',
  'setUTCMonth', 'setUTCSeconds', 'setUint16', 'setUint32', 'setUint8', 'setYear', 'shift', 'slice', 'small', 'some', 'sort',
  'splice', 'split', 'startsWith', 'strike', 'sub', 'subarray', 'substr', 'substring', 'sup', 'symmetricDifference', 'take',
  'test', 'then', 'throw', 'toArray', 'toDateString', 'toExponential', 'toFixed', 'toGMTString', 'toISOString', 'toJSON',
  'toLocaleDateString', 'toLocaleLowerCase', 'toLocaleString', 'toLocaleTimeString', 'toLocaleUpperCase', 'toLowerCase',
  'toPrecision', 'toReversed', 'toSorted', 'toSpliced', 'toString', 'toTimeString', 'toUTCString', 'toUpperCase',
  'toWellFormed', 'transfer', 'transferToFixedLength', 'trim', 'trimEnd', 'trimLeft', 'trimRight', 'trimStart', 'union',
  'unregister', 'unshift', 'valueOf', 'values', 'with',
]);

/** Static members of the built-ins that hold a number: the only ones a script may read as a value. */
export const CONSTANT_MEMBERS = new Set([
  'Math.PI', 'Math.E', 'Math.LN2', 'Math.LN10', 'Math.LOG2E', 'Math.LOG10E', 'Math.SQRT1_2', 'Math.SQRT2',
  'Number.MAX_SAFE_INTEGER', 'Number.MIN_SAFE_INTEGER', 'Number.MAX_VALUE', 'Number.MIN_VALUE', 'Number.EPSILON',
  'Number.POSITIVE_INFINITY', 'Number.NEGATIVE_INFINITY', 'Number.NaN',
]);

/** Names a script may not declare: the prelude's, and those whose meaning the analysis relies on. */
export const UNDECLARABLE = new Set([...PRELUDE_CALLS, 'eval', 'arguments', ...NAMESPACE_GLOBALS, ...VALUE_GLOBALS]);
