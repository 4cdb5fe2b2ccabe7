/**
 * The JavaScript that runs inside the sandbox besides the script, as source text: the prelude
 * evaluated in every run's context before the script (the `callTool`, `tools`, `searchTools` and
 * `describeTools` globals, and the helpers the host pulls calls and pushes answers through), and
 * the part the host evaluates only for a run that needs it (reading an answer that is not plain,
 * or an error; recording `Math.random` and the clock is in `recording-source.ts`). It exists as text because the
 * sandbox has no host objects: whatever the script can reach must be written in its own realm.
 * The host's half of each encoding is in `boundary-codec.ts`, and the two must agree.
 */

/** The name the prelude is evaluated under, so its frames are never taken for the script's. */
export const PRELUDE_FILENAME = 'toolweave-prelude.js';

/**
 * Evaluates to a function of `(load)`, evaluated in every run's context and called once before
 * the script. It captures the intrinsics into `intrinsics` (whose order the parts and the ending
 * functions index), defines the globals `callTool`, `tools`, `searchTools` and `describeTools`,
 * and returns `[intrinsics, part]`. The host reads the script's promise itself.
 *
 * It is kept small because every run compiles it, and QuickJS compiles at about a microsecond a
 * token: what the globals do is in the parts ({@link PART_SOURCES}), each made the first time the
 * script uses a global that needs it, so a script that makes no call compiles none of them.
 * `part(n)` gives part `n`, made for this run by `load(n)` (a host function) the first time it is
 * asked for. Each global forwards to its part.
 *
 * The intrinsics are captured before the script runs, so a script that replaces `JSON` or
 * `String` changes only its own behaviour, not how its calls, errors and answer are read.
 */
export const PRELUDE_SOURCE = `(function (load) {
  "use strict";
  const intrinsics = [JSON.stringify, JSON.parse, Array.isArray, String, Promise, Object.defineProperty, String.prototype.slice,
    String.prototype.indexOf, String.prototype.toWellFormed, Array.prototype.push, Array.prototype.join, Error, Proxy, Object.create,
    TypeError, Reflect.apply, Object.freeze, Object.hasOwn];
  // Without a prototype: an index set on Array.prototype or Object.prototype (a setter the script
  // defined) must never see a part, nor stand in for one.
  const defineProperty = intrinsics[5], parts = intrinsics[13](null);
  function part(n) {
    if (parts[n] === undefined) parts[n] = load(n);
    return parts[n];
  }
  // Defined with a value only: not writable, not enumerable, not configurable.
  // The calls part is read without a call to \`part\` once made: every \`callTool\` goes through here.
  defineProperty(globalThis, "callTool", { value: function callTool(name, args) { return (parts[0] === undefined ? part(0) : parts[0]).callAt(name, args, -1); } });
  defineProperty(globalThis, "tools", { value: new intrinsics[12](intrinsics[13](null), { get: function (target, key) { return part(1).tools[key]; } }) });
  defineProperty(globalThis, "searchTools", { value: function searchTools(query, limit) { return part(1).searchTools(query, limit); } });
  defineProperty(globalThis, "describeTools", { value: function describeTools(names) { return part(1).describeTools(names); } });
  return [intrinsics, part];
})`;

/**
 * Evaluates to a function of `(intrinsics, maxArgsUnits, maxCalls, tooManyCalls)`: part 0, the
 * calls themselves. It returns `{ callAt, call, valued, take, deliver, overLimit, tooManyCalls }`.
 * The sandbox never calls out to the host: the host pulls the calls and pushes the answers, once
 * each per turn of its loop, which costs far less than a host function called per call.
 *
 * - `callTool(name, args)` numbers the call and returns a promise. Past `maxCalls` the promise
 *   resolves at once to the encoded answer `tooManyCalls`; otherwise the call is queued for the
 *   host as one string (see `decodeCall`: args longer than `maxArgsUnits` UTF-16 units
 *   never leave the sandbox). The promise's `text` and `error` throw a TypeError that says to
 *   await it: reading `callTool(...).text` is the usual missing `await`, and would otherwise
 *   quietly be `undefined`. Its `constructor` is `Promise`, so `await` and `then` treat it as a
 *   plain promise. The global is `callAt(name, args, -1)`; a site of an instrumented script
 *   passes its own number.
 * - `call(name, args, mode, site)` numbers and queues any call (the other parts' too), and gives
 *   its index, or 0 past `maxCalls`; a call of another part puts what takes its encoded answer in
 *   `valued[index]`.
 * - `take()` returns the calls queued since the last take, framed (see `frame`).
 * - `deliver(answers)` answers calls: framed texts, each the call's index, `:`, and its encoded
 *   answer (see `encodeAnswer`).
 * - `overLimit()` gives how many calls were past `maxCalls` (answered in the sandbox, never made).
 *
 * No part reads a global: everything they use is an intrinsic the prelude captured before the
 * script ran.
 */
const CALLS_SOURCE = `(function (intrinsics, maxArgsUnits, maxCalls, tooManyCalls) {
  "use strict";
  const stringify = intrinsics[0], parse = intrinsics[1], isArray = intrinsics[2], toStr = intrinsics[3], BasePromise = intrinsics[4];
  const defineProperty = intrinsics[5], slice = intrinsics[6], indexOf = intrinsics[7], wellFormed = intrinsics[8];
  const push = intrinsics[9], join = intrinsics[10], BaseTypeError = intrinsics[14];
  // The calls in flight, by index: a \`callTool\` call's resolve here, any other call's answer in \`valued\`.
  const waiting = intrinsics[13](null), valued = intrinsics[13](null);
  const queued = [];
  let count = 0, resolveNext;
  function capture(resolve) { resolveNext = resolve; }
  function decode(answer) {
    return answer[0] === "T" ? { text: slice.call(answer, 1), error: null } : { text: "", error: parse(slice.call(answer, 1)) };
  }
  function notAwaited() {
    throw new BaseTypeError("callTool(...) gives a promise: await it first, as in (await callTool(name, args)).text");
  }
  class ToolCall extends BasePromise {}
  defineProperty(ToolCall.prototype, "constructor", { value: BasePromise });
  defineProperty(ToolCall.prototype, "text", { get: notAwaited });
  defineProperty(ToolCall.prototype, "error", { get: notAwaited });

  function call(name, args, mode, site) {
    const index = ++count;
    if (index > maxCalls) return 0;
    let encoded = null;
    if (args === undefined) {
      encoded = "{}";
    } else if (args !== null && typeof args === "object" && !isArray(args)) {
      try { encoded = stringify(args); } catch (e) { encoded = null; }
      if (typeof encoded !== "string") encoded = null;
    }
    // Well formed: a lone surrogate would come out of the sandbox as three characters, and the
    // framed length would no longer match.
    const label = wellFormed.call(typeof name === "string" ? name : toStr(name));
    let request = index + ":" + label.length + ":" + label + mode;
    if (site >= 0) request += "@" + site + ";";
    if (encoded !== null) request += encoded.length > maxArgsUnits ? "L" + encoded.length : "J" + encoded;
    push.call(queued, request.length + "|" + request);
    return index;
  }

  function callAt(name, args, site) {
    const promise = new ToolCall(capture);
    const index = call(name, args, "c", site);
    if (index === 0) resolveNext(decode(tooManyCalls));
    else waiting[index] = resolveNext;
    return promise;
  }

  function take() {
    const calls = join.call(queued, "");
    queued.length = 0;
    return calls;
  }

  function deliver(answers) {
    let at = 0;
    while (at < answers.length) {
      const bar = indexOf.call(answers, "|", at);
      const end = bar + 1 + +slice.call(answers, at, bar);
      const colon = indexOf.call(answers, ":", bar);
      const index = slice.call(answers, bar + 1, colon);
      const resolve = waiting[index];
      if (resolve) {
        delete waiting[index];
        resolve(decode(slice.call(answers, colon + 1, end)));
      } else {
        const answer = valued[index];
        delete valued[index];
        if (answer) answer(slice.call(answers, colon + 1, end));
      }
      at = end;
    }
  }

  return {
    callAt: callAt,
    call: call,
    valued: valued,
    take: take,
    deliver: deliver,
    overLimit: function () { return count > maxCalls ? count - maxCalls : 0; },
    tooManyCalls: tooManyCalls,
  };
})`;

/**
 * Evaluates to a function of `(intrinsics, calls)`: part 1, the calls whose answer is a value. It
 * returns `{ tools, searchTools, describeTools, toolsAt, searchAt, describeAt }`.
 *
 * - `tools.<name>(args)` (and `tools["my-tool"](args)`) is a call whose answer is the tool's output
 *   as a value (see `encodeAnswer`'s `"V"`); it rejects with an Error carrying the failure's `code`
 *   (and `innerCode`). `searchTools(query, limit?)` and `describeTools(names)` ask the host's
 *   catalog the same way. Each counts as a call of the run. `toolsAt(site)`, `searchAt(site)` and
 *   `describeAt(site)` make them for a site of an instrumented script.
 */
const VALUES_SOURCE = `(function (intrinsics, calls) {
  "use strict";
  const parse = intrinsics[1], BasePromise = intrinsics[4], slice = intrinsics[6], BaseError = intrinsics[11];
  const BaseProxy = intrinsics[12], create = intrinsics[13];

  // A call whose answer is a value: resolved with it, or rejected with an Error carrying the code.
  function valueCall(name, args, mode, site) {
    let settle;
    const promise = new BasePromise(function (resolve, reject) { settle = { resolve: resolve, reject: reject }; });
    const index = calls.call(name, args, mode, site);
    if (index === 0) settleValue(calls.tooManyCalls, settle);
    else calls.valued[index] = function (answer) { settleValue(answer, settle); };
    return promise;
  }

  function settleValue(answer, settle) {
    const kind = answer[0];
    if (kind === "V") {
      settle.resolve(parse(slice.call(answer, 1)));
    } else if (kind === "T") {
      settle.resolve(slice.call(answer, 1));
    } else {
      const error = parse(slice.call(answer, 1));
      const thrown = new BaseError(error.message);
      thrown.code = error.code;
      if (error.innerCode !== undefined) thrown.innerCode = error.innerCode;
      settle.reject(thrown);
    }
  }

  // Every name reads as a function (but "then": the object is not a promise); a symbol reads as nothing.
  function toolsAt(site) {
    return new BaseProxy(create(null), {
      get: function (target, key) {
        if (typeof key !== "string" || key === "then") return undefined;
        return function (args) { return valueCall(key, args, "v", site); };
      },
    });
  }
  function searchAt(site) {
    return function searchTools(query, limit) { return valueCall("searchTools", { query: query, limit: limit }, "s", site); };
  }
  function describeAt(site) {
    return function describeTools(names) { return valueCall("describeTools", { names: names }, "d", site); };
  }

  return { tools: toolsAt(-1), searchTools: searchAt(-1), describeTools: describeAt(-1), toolsAt: toolsAt, searchAt: searchAt, describeAt: describeAt };
})`;

/**
 * Evaluates to a function of `(intrinsics, calls, values)`: part 2, made only for a script the
 * host instrumented (see `script-instrument.ts`). It returns `sites(kinds)`, which makes the
 * functions the script's call sites call, one per character of `kinds` (`c`: `callTool`, `t`:
 * `tools`, `s`: `searchTools`, `d`: `describeTools`), each naming its site in the calls it makes;
 * `w`, which lets a built-in call the functions handed to it only while the call runs; and `r`,
 * which reads a member as `object[key]` does but answers `undefined` for an object the value
 * inherits (a built-in's method), so no built-in object reaches the script as a value. The host
 * hands them to the script's function as its parameter, so no name reaches them.
 */
const SITES_SOURCE = `(function (intrinsics, calls, values) {
  "use strict";
  const create = intrinsics[13], BaseTypeError = intrinsics[14], apply = intrinsics[15], freeze = intrinsics[16], hasOwn = intrinsics[17];

  function callAtSite(site) { return function (name, args) { return calls.callAt(name, args, site); }; }

  // A function handed to a built-in runs only while the built-in's call does: it cannot be kept and called later.
  function within(thunk) {
    let live = true;
    function guard(fn) {
      return function () {
        if (!live) throw new BaseTypeError("a function handed to a built-in cannot be called after that call has returned");
        return apply(fn, this, arguments);
      };
    }
    try { return thunk(guard); } finally { live = false; }
  }

  function read(object, key) {
    const value = object[key];
    if (((typeof value === "object" && value !== null) || typeof value === "function") && !hasOwn(object, key)) return undefined;
    return value;
  }

  return function sites(kinds) {
    const made = create(null);
    for (let i = 0; i < kinds.length; i++) {
      const kind = kinds[i];
      made[i] = kind === "c" ? callAtSite(i) : kind === "t" ? values.toolsAt(i) : kind === "s" ? values.searchAt(i) : values.describeAt(i);
    }
    made.w = within;
    made.r = read;
    return freeze(made);
  };
})`;

/**
 * The parts of the prelude made only when a run needs them, by number (see `part` in
 * {@link PRELUDE_SOURCE}): the calls, the calls whose answer is a value, and the sites of an
 * instrumented script. Each evaluates to a function of the intrinsics and, but for the first,
 * the parts before it.
 */
export const PART_SOURCES = [CALLS_SOURCE, VALUES_SOURCE, SITES_SOURCE] as const;

/** The part numbers of {@link PART_SOURCES}. */
export const CALLS_PART = 0;
/** See {@link CALLS_PART}. */
export const VALUES_PART = 1;
/** See {@link CALLS_PART}. */
export const SITES_PART = 2;

/**
 * Evaluates to a function of `(intrinsics, maxReturnChars)`, given the prelude's `intrinsics`,
 * that returns `[encodeReturn, describeError]`; the host evaluates it only for a run that needs it.
 *
 * - `describeError(e)` gives JSON text `{ name, message, stack }`, each cut to a short length so
 *   a huge message cannot cross the boundary.
 * - `encodeReturn(v)` gives `"O" + text` for an answer (a string as written, anything else as
 *   JSON, `undefined` as `""`), `"L" + length` for one longer than `maxReturnChars`, `"P"` for a
 *   value that is or holds a promise (a call not awaited), and `"I" + reason` for a value JSON
 *   cannot write. The JSON is written here, inside the sandbox, so a cycle is the script's error
 *   and the length is checked before anything crosses.
 */
export const ENDING_SOURCE = `(function (intrinsics, maxReturnChars) {
  "use strict";
  const stringify = intrinsics[0], toStr = intrinsics[3], BasePromise = intrinsics[4], slice = intrinsics[6], indexOf = intrinsics[7];
  const CAP = 2000;

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

  // A promise writes as "{}", so only a text holding "{}" is searched for one.
  function holdsPromise(value) {
    let found = false;
    stringify(value, function (key, v) {
      if (v instanceof BasePromise) found = true;
      return found ? undefined : v;
    });
    return found;
  }

  function encodeReturn(value) {
    let text;
    if (value === undefined) return "O";
    if (typeof value === "string") {
      text = value;
    } else {
      try {
        text = stringify(value);
        if (typeof text === "string" && indexOf.call(text, "{}") >= 0 && holdsPromise(value)) return "P";
      } catch (e) {
        let reason = "";
        try { reason = cut(e && e.message); } catch (x) {}
        return "I" + (reason || "JSON.stringify failed");
      }
      if (typeof text !== "string") return "I" + "a " + typeof value + " has no JSON form";
    }
    if (text.length > maxReturnChars) return "L" + text.length;
    return "O" + text;
  }

  return [encodeReturn, describeError];
})`;
