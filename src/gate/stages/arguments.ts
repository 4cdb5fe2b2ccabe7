/**
 * Arguments: the stage after chainable. Each call's arguments are an object, checked against the
 * called tool's own `inputSchema`, before it runs. A
 * host that wraps framework or MCP tools loses the validation those had at their own boundary
 * unless the gate's doors do it: `greet({ name: 123 })` must not become "Hello, 123!".
 *
 * A schema is compiled once per tool instance (cached by the instance, so a tool replaced by
 * name gets its own check). A schema ajv cannot compile is not checked: that is the tool's own
 * problem, and refusing every call to it would hide the tool rather than explain it.
 *
 * Only own properties count: an optional field named `toString` may be left out, and a required
 * `valueOf` must be given. An own field named `__proto__` is refused at any depth: JSON Schema checkers
 * skip that name, and a tool that copies its arguments by assignment would make it a prototype.
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { failure } from '../../codes.js';
import { preview, valueAt } from '../../spec/ajv.js';
import { isRecord } from '../../spec/nodes.js';
import type { ITool, ToolExecutionResult } from '../../tool.js';
import type { GateCall } from '../call-record.js';
import type { RefusalAdvice } from '../host-hooks.js';
import { endSentence } from '../../sentence.js';
import { adviceFor } from './chainable.js';
import { protoField, protoSearchFor, searchEverything, valuesSearch, type ProtoSearch } from '../proto-fields.js';

// ajv-formats is CommonJS; under NodeNext its default export sits one level down.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;

// Tools' schemas are not ours: no meta-check, no registering of their `$id`s (two tools may share
// one), and no console output for keywords or formats ajv does not know. `ownProperties`: a field
// is present only when the arguments have it as their own, never through Object.prototype.
const OPTIONS: Options = { allErrors: true, strict: false, validateSchema: false, addUsedSchema: false, logger: false, ownProperties: true };
const draft7 = addFormats(new Ajv(OPTIONS));
const draft2020 = addFormats(new Ajv2020(OPTIONS));

/**
 * What the stage keeps per tool instance (a tool replaced by name gets its own): its compiled
 * check, where arguments that passed it may still hold an own `__proto__` field, and the two as
 * one guard.
 */
interface ToolCheck {
  /** The compiled check of its input schema; `null` when it accepts every object or cannot be compiled. */
  check: ValidateFunction | null;
  /** See `protoSearchFor`: `searchEverything` when the schema closes nothing (or is not read). */
  search: ProtoSearch | null;
  /** Whether arguments may be given to it: they pass `check`, and `search` finds nothing. */
  guard: ArgsGuard;
}

const toolChecks = new WeakMap<ITool, ToolCheck>();

/**
 * The stage: `input_invalid` when a mapping resolved to something that is not an object,
 * `args_invalid` when the door checks arguments and they do not match the tool's schema;
 * `undefined` when they may be used. A compiled step keeps its tool's check, so a run that calls
 * the same instance again does not look it up.
 */
export function checkArguments(call: GateCall): ToolExecutionResult | undefined {
  // A door that checks nothing, and a mapping written as an object, cost one test.
  return call.door!.validateArgs || call.site?.mayBuildNonObject === true ? argumentsVerdict(call) : undefined;
}

function argumentsVerdict(call: GateCall): ToolExecutionResult | undefined {
  const validate = call.door!.validateArgs;
  const site = call.site;
  const args: unknown = call.args;
  if (!isRecord(args)) return failure('input_invalid', `Step "${call.step}": its arguments resolved to ${kindOf(args)}, not an object.`);
  if (!validate) return undefined;
  const tool = call.tool!;
  let guard: ArgsGuard;
  if (site === undefined) guard = toolCheckOf(tool).guard;
  else {
    if (tool !== site.checkedTool) {
      site.argsCheck = site.builtKeys === undefined ? toolCheckOf(tool).guard : builtArgsGuardOf(tool, site.builtKeys);
      site.checkedTool = tool;
    }
    guard = site.argsCheck!;
  }
  // The refusal checks again to name every field: it is made only when the arguments are wrong.
  return guard(args) ? undefined : argsRefusal(tool, call.name, call.step, args, call.door!.gate.advice);
}

/**
 * The guard of a step whose compiled mapping builds its arguments with `keys` (made once per tool
 * instance): where the schema leaves the whole object open, only the fields' values are searched,
 * as the object's own fields are the mapping's keys, none of them `__proto__`.
 */
function builtArgsGuardOf(tool: ITool, keys: readonly string[]): ArgsGuard {
  const { check, search, guard } = toolCheckOf(tool);
  return search === searchEverything ? guardOf(check, valuesSearch(keys)) : guard;
}

/** Whether arguments may be given to a tool. */
type ArgsGuard = (args: Record<string, unknown>) => boolean;

function guardOf(check: ValidateFunction | null, search: ProtoSearch | null): ArgsGuard {
  if (check === null) return search === null ? () => true : (args) => !search(args);
  return search === null ? (args) => check(args) : (args) => check(args) && !search(args);
}

/** What a value that should have been an object is, in words. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** The compiled check of `tool`'s input schema, once per instance; `null` when it accepts every object or cannot be compiled. */
export function argsCheckOf(tool: ITool): ValidateFunction | null {
  return toolCheckOf(tool).check;
}

/** What the stage keeps for `tool`, made the first time it is asked for. */
function toolCheckOf(tool: ITool): ToolCheck {
  let made = toolChecks.get(tool);
  if (made === undefined) toolChecks.set(tool, (made = checkOfTool(tool)));
  return made;
}

function checkOfTool(tool: ITool): ToolCheck {
  let check: ValidateFunction | null = null;
  let search: ProtoSearch | null = searchEverything;
  // A missing schema (or one whose getter throws) fails the read here, as one ajv cannot compile does.
  try {
    const schema = tool.inputSchema;
    const strictSchema = tool.strictInputSchema;
    if (strictSchema !== undefined) {
      // A tool that takes a strict form too takes arguments that match either (searched whole); a
      // refusal names what the ordinary form wants.
      check = eitherForm(compileInputSchema(schema), compileInputSchema(strictSchema), schema);
    } else if (!acceptsEveryObject(schema)) {
      check = compileInputSchema(schema);
      search = searchLeftBy(schema);
    }
  } catch {
    check = null;
  }
  return { check, search, guard: guardOf(check, search) };
}

/** See `protoSearchFor`; the whole when the schema cannot be read. */
function searchLeftBy(schema: unknown): ProtoSearch | null {
  try {
    return protoSearchFor(schema);
  } catch {
    return searchEverything;
  }
}

function compileInputSchema(schema: ITool['inputSchema']): ValidateFunction {
  const draft = typeof schema.$schema === 'string' && /2020-12|2019-09/.test(schema.$schema) ? draft2020 : draft7;
  return draft.compile(schema);
}

/**
 * A check that passes what `ordinary` or `strict` passes, and the ordinary form with `null` for
 * fields it does not require (a strict client's way of leaving them out); with `ordinary`'s
 * errors when none does.
 */
function eitherForm(ordinary: ValidateFunction, strict: ValidateFunction, schema: unknown): ValidateFunction {
  // The ordinary form first, as most callers send it: only a call that is not in it pays for the
  // strict form's check and the copy without nulls.
  const check = ((args: unknown) => {
    if (ordinary(args) || strict(args) || ordinary(withoutOptionalNulls(args, schema, 0))) {
      check.errors = null;
      return true;
    }
    ordinary(args);
    check.errors = ordinary.errors;
    return false;
  }) as ValidateFunction;
  return check;
}

/** `value` without the `null`s `schema` does not require, at any depth it describes (a copy). */
function withoutOptionalNulls(value: unknown, schema: unknown, depth: number): unknown {
  if (depth > 32 || !isRecord(schema)) return value;
  if (Array.isArray(value)) return value.map((item) => withoutOptionalNulls(item, schema.items, depth + 1));
  if (!isRecord(value) || !isRecord(schema.properties)) return value;
  const properties = schema.properties;
  const required = Array.isArray(schema.required) ? schema.required : [];
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const described = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (item === null && described !== undefined && !required.includes(key)) continue;
    Object.defineProperty(out, key, { value: withoutOptionalNulls(item, described, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Keywords that describe a schema without constraining what it accepts. */
const ANNOTATIONS = new Set(['$schema', '$id', '$comment', 'title', 'description', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly', '$defs', 'definitions']);

/**
 * Whether `schema` accepts every object (`{ type: 'object' }`, with only annotations, no listed
 * properties, nothing required): such a tool's calls need no compiled check, which would cost every
 * call and could refuse nothing (the arguments are known to be an object, and `__proto__` is asked
 * apart).
 */
function acceptsEveryObject(schema: Record<string, unknown>): boolean {
  for (const key of Object.keys(schema)) {
    const value = schema[key];
    if (ANNOTATIONS.has(key)) continue;
    if (key === 'type' && value === 'object') continue;
    if (key === 'properties' && isRecord(value) && Object.keys(value).length === 0) continue;
    if (key === 'additionalProperties' && value === true) continue;
    if (key === 'required' && Array.isArray(value) && value.length === 0) continue;
    return false;
  }
  return true;
}

/**
 * The arguments check every door makes before a call, for a host that builds its own door.
 *
 * The `args_invalid` refusal when `args` do not match `tool`'s `inputSchema`, naming the tool,
 * the step and each field; `undefined` when they match (or the schema cannot be checked).
 *
 * @param tool - the tool about to run (the instance whose schema is checked)
 * @param name - the name the call used
 * @param step - the step that calls it
 * @param args - the arguments it would run with
 * @param advice - the host's words for what its reader can change (a gate's `advice`); default: "Fix the arguments and call again."
 *
 * @category The gate
 */
export function argsRefusal(tool: ITool, name: string, step: string, args: Record<string, unknown>, advice?: RefusalAdvice): ToolExecutionResult | undefined {
  const fix = endSentence(adviceFor(advice, 'args', name) ?? 'Fix the arguments and call again');
  const proto = protoField(args);
  if (proto !== undefined) {
    const problem = `${proto} is not a name an argument may have`;
    return failure('args_invalid', `Step "${step}": the arguments of tool "${name}" are refused: ${problem}. ${fix}`, {
      tool: name,
      step,
      field: proto,
      fields: [proto],
      errors: [problem],
    });
  }
  const check = argsCheckOf(tool);
  if (check === null || check(args)) return undefined;
  const problems = (check.errors ?? []).map((e) => describe(e, args));
  const fields = [...new Set((check.errors ?? []).map(fieldOf))];
  return failure('args_invalid', `Step "${step}": the arguments of tool "${name}" do not match its inputSchema: ${problems.join('; ')}. ${fix}`, {
    tool: name,
    step,
    field: fields[0],
    fields,
    errors: problems,
  });
}

/** The argument a problem is about: `name`, `user.id`, or `(arguments)` for the object itself. */
function fieldOf(e: ErrorObject): string {
  const path = e.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required') path.push(String(e.params.missingProperty));
  else if (e.keyword === 'additionalProperties') path.push(String(e.params.additionalProperty));
  return path.length ? path.join('.') : '(arguments)';
}

/** One problem as a sentence: the field, what is wrong, and what it got. */
function describe(e: ErrorObject, args: Record<string, unknown>): string {
  const field = fieldOf(e);
  if (e.keyword === 'required') return `${field} is required`;
  if (e.keyword === 'additionalProperties') return `${field} is not an argument it takes`;
  return `${field} ${e.message ?? 'is invalid'} (got ${preview(valueAt(args, e.instancePath))})`;
}
