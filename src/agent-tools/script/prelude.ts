/**
 * The JavaScript that runs inside the sandbox before and around the script: the `callTool`
 * global, the helpers that carry errors and the return value out as strings, and the wrapper
 * that turns the script's body into an async function.
 */

/** The file name the script is evaluated under; error stacks name it, and the line is read from it. */
export const SCRIPT_FILENAME = 'run_js.js';

/** The name the prelude is evaluated under, so its frames are never taken for the script's. */
export const PRELUDE_FILENAME = 'toolweave-prelude.js';

/** How many lines {@link wrapScript} puts before the script's first line. */
export const WRAPPER_LINES_BEFORE = 1;

/**
 * The script's body as an async function called at once; evaluating it gives the promise of the
 * script's answer. The wrapper sits on its own lines, so a line in an error is the script's line
 * plus {@link WRAPPER_LINES_BEFORE}.
 */
export function wrapScript(code: string): string {
  return `(async () => {\n${code}\n})()`;
}

/**
 * Evaluates to a function of `(hostCall, maxReturnChars, reserveBytes)`. Called once, it defines
 * the global `callTool` (a plain in-sandbox function around the host function, which itself is
 * never reachable from the script) and returns `[describeError, encodeReturn, release, restore]`.
 *
 * - `callTool(name, args)` sends the args as JSON text (`null` when they are not a plain object
 *   JSON can write; the host answers that with an error) and parses the host's JSON answer.
 * - `describeError(e)` gives JSON text `{ name, message, stack }`, each cut to a short length so
 *   a huge message cannot cross the boundary.
 * - `encodeReturn(v)` gives `"O" + text` for an answer (a string as written, anything else as
 *   JSON, `undefined` as `""`), `"L" + length` for one longer than `maxReturnChars`, and
 *   `"I" + reason` for a value JSON cannot write. The JSON is written here, inside the sandbox,
 *   so a cycle is the script's error and the length is checked before anything crosses.
 *
 * - `release()` frees the reserve: a block of `reserveBytes` held where the script cannot reach
 *   it, and `restore()` takes it again (`false` when the heap is too full). The host releases it
 *   before it writes into the sandbox's memory (a call's answer, reading the script's error or
 *   answer), so those writes find room even when the script has filled its heap.
 *
 * The intrinsics are captured before the script runs, so a script that replaces `JSON` or
 * `String` changes only its own behaviour, not how its errors and answer are read.
 */
export const PRELUDE_SOURCE = `(function (hostCall, maxReturnChars, reserveBytes) {
  "use strict";
  const Reserve = ArrayBuffer;
  let reserve = new Reserve(reserveBytes);
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const isArray = Array.isArray;
  const toStr = String;
  const defineProperty = Object.defineProperty;
  const then = Promise.prototype.then;
  const slice = String.prototype.slice;
  const CAP = 2000;

  function decode(answer) { return parse(answer); }

  function callTool(name, args) {
    let encoded = null;
    if (args === undefined) {
      encoded = "{}";
    } else if (args !== null && typeof args === "object" && !isArray(args)) {
      try { encoded = stringify(args); } catch (e) { encoded = null; }
      if (typeof encoded !== "string") encoded = null;
    }
    const pending = hostCall(typeof name === "string" ? name : toStr(name), encoded);
    return then.call(pending, decode);
  }
  defineProperty(globalThis, "callTool", { value: callTool, writable: false, enumerable: false, configurable: false });

  function cut(s) {
    if (typeof s !== "string") return "";
    return s.length > CAP ? slice.call(s, 0, CAP) + "..." : s;
  }

  function describeError(e) {
    let name = "", message = "", stack = "";
    if (e !== null && (typeof e === "object" || typeof e === "function")) {
      try { name = cut(e.name); } catch (x) {}
      try { message = cut(e.message); } catch (x) {}
      try { stack = cut(e.stack); } catch (x) {}
      if (!name && !message) {
        try { message = cut(stringify(e)); } catch (x) { message = "a non-Error object was thrown"; }
        name = "Thrown value";
      }
    } else {
      name = "Thrown value";
      try { message = cut(toStr(e)); } catch (x) { message = typeof e; }
    }
    return stringify({ name: name, message: message, stack: stack });
  }

  function encodeReturn(value) {
    let text;
    if (value === undefined) return "O";
    if (typeof value === "string") {
      text = value;
    } else {
      try { text = stringify(value); } catch (e) {
        let reason = "";
        try { reason = cut(e && e.message); } catch (x) {}
        return "I" + (reason || "JSON.stringify failed");
      }
      if (typeof text !== "string") return "I" + "a " + typeof value + " has no JSON form";
    }
    if (text.length > maxReturnChars) return "L" + text.length;
    return "O" + text;
  }

  // Refcounted: dropping the only reference frees the block at once.
  function release() { reserve = null; }
  function restore() {
    try { reserve = new Reserve(reserveBytes); return true; } catch (e) { return false; }
  }

  return [describeError, encodeReturn, release, restore];
})`;
