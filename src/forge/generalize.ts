/**
 * Generalization: a mined chain shape as a composite. A constant that is the same in every
 * occurrence stays a literal; one that varies becomes an `$input` field, its schema inferred from
 * the values seen; a copy becomes a reference to the step it came from; a for_each step goes over
 * the list it was seen going over. Side-effecting (and undeclared) steps are listed by name, and
 * the examples give their recorded outputs as dry-run stubs.
 */
import type { ComposableToolSpec, SpecNode } from '../spec/types.js';
import type { ChainOccurrence, ChainShape, StepShape } from './mine.js';
import { pathText } from './mine.js';
import type { FlowSegment } from './flow.js';

/**
 * An example of a forged composite, as a composite file holds it.
 *
 * @category Forge: composites from recordings
 */
export interface ForgedExample {
  /** Where it was recorded. */
  name: string;
  /** The input. */
  input: Record<string, unknown>;
  /** The recorded outputs of the side-effecting steps, by step name. */
  stepOutputs?: Record<string, unknown>;
  /** The recorded output of the last step. */
  output?: unknown;
}

/**
 * A composite forged from a chain shape, in the form of a composite file.
 *
 * @category Forge: composites from recordings
 */
export interface ForgedComposite {
  /** Its name, from its tools. */
  name: string;
  /** What it does, from its tools, and where it was seen. */
  description: string;
  /** The input fields: the constants that varied. */
  inputSchema: Record<string, unknown>;
  /** The spec. */
  spec: ComposableToolSpec;
  /** The nodes whose tools change things (or do not say), by name: a dry run takes their stub outputs. */
  sideEffectingSteps: string[];
  /** Examples from the recordings, for `toolweave check`. */
  examples: ForgedExample[];
  /**
   * What each side-effecting tool it calls needs trusted for its calls to run as recorded (from the
   * recordings' provenance, when they were made through a gate with `flows`): the arguments that
   * came from trusted data in every recorded call. An argument left out came from untrusted data:
   * a host's policy that requires it trusted asks about (or refuses) the composite's call.
   */
  flowPolicies?: Record<string, { trusted: string[] }>;
}

/**
 * Options of {@link generalizeChain}.
 *
 * @category Forge: composites from recordings
 */
export interface GeneralizeOptions {
  /** Names already taken (other composites, tools); the forged name avoids them and is added. */
  takenNames?: Set<string>;
  /** The most examples (default 3), from different sessions first. */
  maxExamples?: number;
  /**
   * Which constants the same in every occurrence still become input fields (by their value and
   * path): with one occurrence (a composite forged from one run) nothing varies, and the values a
   * run was given are its input. Default: none.
   */
  asInput?: (value: unknown, path: readonly FlowSegment[]) => boolean;
  /** Where it was forged from, for its description (default: the sessions the chain was seen in). */
  origin?: string;
}

/** The most characters of a composite's name. */
const MAX_NAME_CHARS = 64;

/**
 * The composite a chain shape generalizes to.
 *
 * @param shape - a shape {@link mineChains} found
 * @param options - the names taken, and how many examples
 *
 * @category Forge: composites from recordings
 */
export function generalizeChain(shape: ChainShape, options: GeneralizeOptions = {}): ForgedComposite {
  const taken = options.takenNames ?? new Set<string>();
  const stepNames = uniqueNames(shape.steps.map((step) => identifier(step.tool)));
  const fieldNames = new Set<string>();
  const properties: Record<string, Record<string, unknown>> = {};
  // Per step, per part: the expression its argument takes, and the input field it reads (if any).
  const expressions: unknown[][] = [];
  const fields: (string | undefined)[][] = [];
  shape.steps.forEach((step, s) => {
    expressions.push([]);
    fields.push([]);
    step.parts.forEach((part, p) => {
      const construction = part.construction;
      let expression: unknown;
      let field: string | undefined;
      switch (construction.kind) {
        case 'copy':
          expression = `$steps.${stepNames[construction.step]}${construction.item !== undefined ? `[${construction.item}]` : ''}${pathText(construction.path)}`;
          break;
        case 'item':
          expression = `$item${pathText(construction.path)}`;
          break;
        case 'same': {
          const target = shape.steps[construction.step].parts.findIndex((other) => pathText(other.path) === pathText(construction.path));
          expression = expressions[construction.step][target];
          field = fields[construction.step][target];
          break;
        }
        case 'const':
        case 'line': {
          const values = shape.occurrences.map((occurrence) => occurrence.steps[s].values[p]);
          const same = values.every((value) => JSON.stringify(value) === JSON.stringify(values[0]));
          if (construction.kind === 'const' && same && !options.asInput?.(values[0], part.path)) {
            expression = literal(values[0]);
          } else {
            field = uniqueName(fieldName(part.path), fieldNames);
            properties[field] = schemaOf(values);
            expression = `$input.${field}`;
          }
        }
      }
      expressions[s].push(expression);
      fields[s].push(field);
    });
  });

  const steps: SpecNode[] = shape.steps.map((step, s) => {
    const inputMapping = mappingOf(step.parts.map((part) => part.path), expressions[s]);
    if (!step.forEach) return { name: stepNames[s], tool: step.tool, inputMapping };
    const { step: source, item, path } = step.forEach;
    return {
      name: stepNames[s],
      combinator: 'for_each',
      items: `$steps.${stepNames[source]}${item !== undefined ? `[${item}]` : ''}${pathText(path)}`,
      template: { name: `${stepNames[s]}_item`, tool: step.tool, inputMapping },
    };
  });
  const sideEffecting = shape.steps.map((step, s) => (step.hasSideEffects === false ? undefined : s)).filter((s): s is number => s !== undefined);
  const name = uniqueName(nameOf(shape.steps), taken);
  const inputFields = Object.keys(properties);
  return {
    name,
    description: describe(shape, stepNames, sideEffecting, options.origin),
    inputSchema: { type: 'object', properties, required: inputFields, additionalProperties: false },
    spec: { steps, ...(independent(shape.steps) ? { schedule: 'auto' as const } : {}) },
    sideEffectingSteps: sideEffecting.map((s) => callingNode(shape.steps[s], stepNames[s])),
    examples: examplesOf(shape, stepNames, fields, sideEffecting, options.maxExamples ?? 3),
    ...flowPoliciesOf(shape, sideEffecting),
  };
}

/**
 * The arguments of each side-effecting step's tool that were trusted in every recorded call that
 * says where its arguments came from; nothing when no recorded call says.
 */
function flowPoliciesOf(shape: ChainShape, sideEffecting: readonly number[]): { flowPolicies?: Record<string, { trusted: string[] }> } {
  const trusted = new Map<string, Set<string>>();
  const untrusted = new Map<string, Set<string>>();
  for (const s of sideEffecting) {
    const tool = shape.steps[s].tool;
    for (const occurrence of shape.occurrences) {
      for (const call of occurrence.steps[s].calls) {
        if (call.provenance === undefined) continue;
        for (const [name, origin] of Object.entries(call.provenance)) {
          const into = origin.trusted ? trusted : untrusted;
          if (!into.has(tool)) into.set(tool, new Set());
          into.get(tool)!.add(name);
        }
      }
    }
  }
  if (trusted.size === 0 && untrusted.size === 0) return {};
  const policies: Record<string, { trusted: string[] }> = {};
  for (const tool of new Set([...trusted.keys(), ...untrusted.keys()])) {
    const never = untrusted.get(tool) ?? new Set<string>();
    Object.defineProperty(policies, tool, { enumerable: true, value: { trusted: [...(trusted.get(tool) ?? [])].filter((name) => !never.has(name)).sort() } });
  }
  return { flowPolicies: policies };
}

/**
 * Whether some step reads nothing (directly or not) of the step before it: then the steps run with
 * `schedule: 'auto'`, each as soon as what it reads is there, side by side where they read nothing
 * of each other (a side-effecting step stays a barrier).
 */
function independent(steps: readonly StepShape[]): boolean {
  const reads = steps.map((step) => {
    const direct = new Set<number>();
    if (step.forEach) direct.add(step.forEach.step);
    for (const part of step.parts) if (part.construction.kind === 'copy' || part.construction.kind === 'same' || part.construction.kind === 'line') direct.add(part.construction.step);
    return direct;
  });
  const reaches = (from: number, to: number): boolean => reads[from].has(to) || [...reads[from]].some((step) => step > to && reaches(step, to));
  return steps.some((_, s) => s > 0 && !reaches(s, s - 1));
}

/** Up to `max` examples, one per session first. */
function examplesOf(shape: ChainShape, stepNames: readonly string[], fields: readonly (string | undefined)[][], sideEffecting: readonly number[], max: number): ForgedExample[] {
  const seen = new Set<string>();
  const picked: ChainOccurrence[] = [];
  for (const occurrence of shape.occurrences) {
    if (picked.length >= max) break;
    if (seen.has(occurrence.session)) continue;
    seen.add(occurrence.session);
    picked.push(occurrence);
  }
  const examples: ForgedExample[] = [];
  for (const occurrence of picked) {
    const input: Record<string, unknown> = {};
    occurrence.steps.forEach((step, s) => step.values.forEach((value, p) => {
      const field = fields[s][p];
      if (field !== undefined && !Object.hasOwn(input, field)) input[field] = value;
    }));
    const stepOutputs: Record<string, unknown> = {};
    let stubbed = true;
    for (const s of sideEffecting) {
      const calls = occurrence.steps[s].calls;
      if (calls.some((call) => !Object.hasOwn(call, 'output'))) stubbed = false;
      // A for_each step's template answers with the first item's output for every item.
      stepOutputs[callingNode(shape.steps[s], stepNames[s])] = calls[0].output;
    }
    // A side-effecting step whose output was cut has no stub: the example could not run dry.
    if (!stubbed) continue;
    const last = occurrence.steps[occurrence.steps.length - 1];
    const lastStep = shape.steps.length - 1;
    const whole = last.calls.every((call) => Object.hasOwn(call, 'output'));
    const stubbedEach = shape.steps[lastStep].forEach !== undefined && sideEffecting.includes(lastStep);
    const first = occurrence.steps[0].calls[0];
    examples.push({
      name: `recorded ${first.time} in ${baseName(occurrence.session)}`,
      input,
      ...(sideEffecting.length ? { stepOutputs } : {}),
      ...(whole && !stubbedEach ? { output: shape.steps[lastStep].forEach ? last.calls.map((call) => call.output) : last.calls[0].output } : {}),
    });
  }
  return examples;
}

/** The name of the node that calls a step's tool: the step's, or its template's for a for_each step. */
function callingNode(step: StepShape, name: string): string {
  return step.forEach ? `${name}_item` : name;
}

/**
 * The argument object built from parts at `paths` with `expressions`. Keys are read and written as
 * own properties only: a recorded `__proto__` or `constructor` is a key like any other, never a
 * way into a prototype.
 */
function mappingOf(paths: readonly FlowSegment[][], expressions: readonly unknown[]): unknown {
  let root: unknown = {};
  paths.forEach((path, i) => {
    if (path.length === 0) {
      root = expressions[i];
      return;
    }
    let node = root as Record<string | number, unknown>;
    path.forEach((segment, d) => {
      if (d === path.length - 1) {
        setOwn(node, segment, expressions[i]);
        return;
      }
      const next = Object.hasOwn(node, segment) ? node[segment] : undefined;
      if (typeof next !== 'object' || next === null) setOwn(node, segment, typeof path[d + 1] === 'number' ? [] : {});
      node = node[segment] as Record<string | number, unknown>;
    });
  });
  return root;
}

/** Set `key` as an own property of `node`, as JSON.parse would (`__proto__` included). */
function setOwn(node: Record<string | number, unknown>, key: FlowSegment, value: unknown): void {
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A value as a literal of a mapping: every string starting with `$` escaped as `$$`. */
function literal(value: unknown): unknown {
  if (typeof value === 'string') return value.startsWith('$') ? `$${value}` : value;
  if (Array.isArray(value)) return value.map(literal);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, literal(item)]));
  return value;
}

/**
 * A JSON Schema for the values seen: their type (integers with numbers are numbers), the items'
 * schema of lists, and the values themselves as `examples`.
 */
export function schemaOf(values: readonly unknown[]): Record<string, unknown> {
  const types = new Set(values.map(typeOf));
  if (types.has('integer') && types.has('number')) types.delete('integer');
  const list = [...types].sort();
  const schema: Record<string, unknown> = { type: list.length === 1 ? list[0] : list };
  if (list.length === 1 && list[0] === 'array') {
    const items = values.flatMap((value) => value as unknown[]);
    if (items.length) schema.items = { type: schemaOf(items).type };
  }
  const distinct = [...new Map(values.map((value) => [JSON.stringify(value), value])).values()].slice(0, 3);
  if (list.every((type) => type !== 'object' && type !== 'array')) schema.examples = distinct;
  return schema;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The name from the tools: `search_files_then_each_read_text_file`, at most 64 characters. */
function nameOf(steps: readonly StepShape[]): string {
  const joined = steps.map((step) => (step.forEach ? `each_${identifier(step.tool)}` : identifier(step.tool))).join('_then_');
  return joined.length <= MAX_NAME_CHARS - 4 ? joined : joined.slice(0, MAX_NAME_CHARS - 4).replace(/_+$/u, '');
}

function describe(shape: ChainShape, stepNames: readonly string[], sideEffecting: readonly number[], origin?: string): string {
  const steps = shape.steps.map((step) => (step.forEach ? `${step.tool} for each item of ${stepNames[step.forEach.step]}'s list` : step.tool)).join(', then ');
  const effects = sideEffecting.length ? ` Side effects: ${sideEffecting.map((s) => `${shape.steps[s].tool} (step ${stepNames[s]}${shape.steps[s].hasSideEffects === undefined ? ', undeclared' : ''})`).join(', ')}.` : '';
  return `Calls ${steps}. Forged from ${origin ?? `the chain seen in ${shape.sessions} recorded sessions`}.${effects}`;
}

function identifier(text: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9_]+/gu, '_').replace(/^_+|_+$/gu, '');
  return cleaned === '' ? 'step' : /^[0-9]/u.test(cleaned) ? `_${cleaned}` : cleaned;
}

/** A field's name from its path: its last property name. */
function fieldName(path: readonly FlowSegment[]): string {
  const last = [...path].reverse().find((segment): segment is string => typeof segment === 'string');
  return last === undefined ? 'value' : identifier(last);
}

function uniqueNames(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => uniqueName(name, taken));
}

/** `name`, or `name_2`, `name_3`, ... : the first not in `taken`, which it is added to. */
function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = `${name}_${n}`;
  taken.add(candidate);
  return candidate;
}

function baseName(file: string): string {
  return file.split(/[\\/]/u).pop() ?? file;
}
