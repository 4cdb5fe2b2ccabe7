/**
 * The JavaScript a run that may pause evaluates inside the sandbox, as source text: it records
 * `Math.random` and the clock, so a replay draws the same values (see `value-recording.ts`, the
 * host's half). Text, as the prelude is (`prelude-source.ts`): the sandbox has no host objects.
 */

/**
 * Evaluates to a function of `(given, cap)`, called only in a run that may pause (its values are
 * recorded, so a replay draws the same): it puts `Math.random`, `Date.now`, `new Date()` and
 * `Date()` without arguments over values the host gives and records, and returns `drawn`. A run
 * that cannot pause never evaluates it, and keeps QuickJS's own functions.
 *
 * - `given` is JSON `[random[], clock[]]`: the values a replay hands back first, in order; past
 *   them values are drawn fresh (QuickJS's own) and recorded, until `cap` of a kind (those given
 *   included) are; past that they are drawn fresh and not recorded.
 * - `drawn()` gives the values recorded since it was last called as JSON `[random[], clock[]]`, or
 *   `""` when there are none: the host takes them with each batch of calls, so every value a call
 *   could depend on has reached the host before the call does.
 * - `Date` is a function of its own whose `prototype` is the built-in one: `instanceof Date`,
 *   `Date.parse`, `Date.UTC` and a date made from arguments are as they were.
 */
export const RECORDING_SOURCE = `(function (given, cap) {
  "use strict";
  const NativeDate = Date, nativeNow = Date.now, nativeRandom = Math.random, construct = Reflect.construct;
  const stringify = JSON.stringify, push = Array.prototype.push, defineProperty = Object.defineProperty;
  const old = JSON.parse(given), randoms = old[0], clocks = old[1];
  let randomAt = 0, clockAt = 0, randomCount = randoms.length, clockCount = clocks.length;
  let freshRandom = [], freshClock = [];

  function random() {
    if (randomAt < randoms.length) return randoms[randomAt++];
    const value = nativeRandom();
    if (randomCount < cap) { randomCount++; push.call(freshRandom, value); }
    return value;
  }
  function now() {
    if (clockAt < clocks.length) return clocks[clockAt++];
    const value = nativeNow();
    if (clockCount < cap) { clockCount++; push.call(freshClock, value); }
    return value;
  }
  function RecordedDate(year, month, day, hours, minutes, seconds, ms) {
    if (new.target === undefined) return construct(NativeDate, [now()]).toString();
    if (arguments.length === 0) return construct(NativeDate, [now()], new.target);
    return construct(NativeDate, arguments, new.target);
  }
  defineProperty(RecordedDate, "name", { value: "Date" });
  defineProperty(RecordedDate, "prototype", { value: NativeDate.prototype, writable: false });
  defineProperty(NativeDate.prototype, "constructor", { value: RecordedDate, writable: true, enumerable: false, configurable: true });
  defineProperty(RecordedDate, "now", { value: function now_() { return now(); }, writable: true, enumerable: false, configurable: true });
  defineProperty(RecordedDate.now, "name", { value: "now" });
  defineProperty(RecordedDate, "parse", { value: NativeDate.parse, writable: true, enumerable: false, configurable: true });
  defineProperty(RecordedDate, "UTC", { value: NativeDate.UTC, writable: true, enumerable: false, configurable: true });
  defineProperty(globalThis, "Date", { value: RecordedDate, writable: true, enumerable: false, configurable: true });
  defineProperty(Math, "random", { value: random, writable: true, enumerable: false, configurable: true });

  return function drawn() {
    if (freshRandom.length === 0 && freshClock.length === 0) return "";
    const text = stringify([freshRandom, freshClock]);
    freshRandom = [];
    freshClock = [];
    return text;
  };
})`;
