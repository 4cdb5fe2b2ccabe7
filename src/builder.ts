/**
 * ComposableToolBuilder: a thin facade over the spec checks, the engine and the gate. It turns a
 * {@link ComposableToolSpec} into an {@link ITool} any orchestrator can register.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { failure } from './codes.js';
import { checkChainable, namesOf, toToolSet, type ChainCheck, type SideEffectingTools } from './gate/stages/chainable.js';
import type { DoorInfo } from './tool-events.js';
import { isStepGate } from './gate/step-gate.js';
import { messageOf } from './gate/message-of.js';
import type { StepGate } from './gate/options.js';
import { DEFAULT_STEP_TIMEOUT_MS } from './engine/compile-env.js';
import { dryRunOf, runSettings, settingsFit, type RunSettings } from './engine/run-settings.js';
import type { SnapshotProvider } from './engine/snapshot.js';
import { runAsDoor } from './doors/door-run.js';
import { registerDoor } from './runs/door-registry.js';
import { compileSchema, schemaProblems, type SchemaCheck } from './spec/ajv.js';
import { registryProblems } from './spec/registry-check.js';
import type { ComposableToolSpec } from './spec/types.js';
import { checkAndCompile, type CheckedSpec, type ValidationResult } from './spec/validate.js';
import type { ITool, JSONSchemaObject, ToolExecutionContext, ToolExecutionResult } from './tool.js';

/**
 * The bare callback older hosts pass; accepted, but nothing can be composed through it.
 *
 * @category Build composites
 */
export type ExecuteCallback = (toolName: string, args: Record<string, unknown>, context: ToolExecutionContext) => Promise<ToolExecutionResult>;

/**
 * Builder settings.
 *
 * @category Build composites
 */
export interface ComposableToolBuilderOptions {
  /** Refuse unresolvable references when a spec is validated or built (default false: they pass through as literals). */
  strictMode?: boolean;
  /** The default per-step timeout in milliseconds (default 120,000). */
  stepTimeoutMs?: number;
  /** The host's snapshot/restore pair, for scopes that roll back. */
  snapshots?: SnapshotProvider;
  /**
   * Told each warning `build` finds (lenient mode only): an unknown `$`-expression kept as the
   * literal text, a refused JSONPath filter, a reference that reads `undefined` (a `$input` field
   * the inputSchema does not declare among them). `validate` returns the same warnings (given the
   * same `inputSchema`); `build` logs nothing itself and throws only on errors. Default: none are
   * reported but by `validate`.
   */
  onWarning?: (warning: string) => void;
  /**
   * Check each step's arguments against the step tool's own `inputSchema` before it runs
   * (`args_invalid`, naming the tool, the step and the field), and arguments fixed in the spec at
   * `validate` and `build`. Default true: a mapping that names a field wrong (`nmae` for `name`)
   * is refused before the tool sees it, as the model-facing tools refuse it. `false` skips the
   * check (a schema compiled once per tool, then one ajv check per call).
   */
  validateArgs?: boolean;
}

/**
 * What {@link ComposableToolBuilder.validate} may be told besides the spec.
 *
 * @category Build composites
 */
export interface ValidateOptions {
  /** The name the composite will be built under: a step that calls it is not an unknown tool (it is refused at run time as a cycle). */
  name?: string;
  /**
   * The inputSchema it will be built with: a `$input` reference to a field the schema does not
   * declare (`$input.idd` where it declares `id`) is then a warning naming the closest fields, an
   * error in strict mode. `build` checks against its own inputSchema.
   */
  inputSchema?: JSONSchemaObject;
}

/**
 * What {@link ComposableToolBuilder.runPipeline} takes besides the spec and input.
 *
 * @category Build composites
 */
export interface RunPipelineOptions {
  /** Dry run (forge-time tests): side-effecting and composite steps take their outputs from `stepOutputs`. */
  dry?: { stepOutputs: Record<string, unknown> };
  /** Aborts the run: no step starts after it fires. */
  signal?: AbortSignal;
}

/**
 * The input type of a built tool: inferred from a `const` JSON Schema, a plain record otherwise.
 *
 * @category Build composites
 */
export type InputOf<S> = S extends JSONSchema ? (FromSchema<S> extends Record<string, unknown> ? FromSchema<S> : Record<string, unknown>) : Record<string, unknown>;

/**
 * Thrown by {@link ComposableToolBuilder.build} for a spec or schema that can never run (a configuration error).
 *
 * @category Build composites
 */
export class SpecError extends Error {
  /** Always `spec_invalid`. */
  readonly code = 'spec_invalid';
  /** Every problem found. */
  readonly errors: string[];
  /** @param message - the summary; @param errors - every problem */
  constructor(message: string, errors: string[]) {
    super(`${message}: ${errors.join('; ')}`);
    this.name = 'SpecError';
    this.errors = errors;
  }
}

/**
 * Builds composite tools from specs.
 *
 * Every step runs through the bound {@link StepGate}, checked
 * first against the chainability rule at every run (a tool is replaced by name).
 *
 * @example
 * ```ts
 * const builder = new ComposableToolBuilder(createStepGate({ resolve: (n) => registry.get(n) }));
 * builder.bind({ sideEffectingTools: ['send_email'] });
 * const tool = builder.build('research', 'Search then summarise', schema, {
 *   steps: [
 *     { name: 'search', tool: 'web_search', inputMapping: { query: '$input.topic' } },
 *     { name: 'summarise', tool: 'summarise_text', inputMapping: { text: '$prev.snippet' } },
 *   ],
 * });
 * ```
 *
 * @category Build composites
 */
export class ComposableToolBuilder {
  /** When true, unresolvable references are errors at `validate` and `build`; otherwise unknown `$`-expressions are literals. */
  readonly strictMode: boolean;
  private gate: StepGate | undefined;
  private sideEffecting: ReadonlySet<string> = new Set();
  private readonly stepTimeoutMs: number;
  private readonly snapshots: SnapshotProvider | undefined;
  private readonly onWarning: ((warning: string) => void) | undefined;
  private readonly validateArgs: boolean;

  /**
   * @param gateOrExecute - a {@link StepGate}; a bare `(toolName, args, context)` callback is still
   *   accepted, but it cannot say what a step tool is, so nothing is composed until a gate is bound.
   * @param options - builder settings
   */
  constructor(gateOrExecute: StepGate | ExecuteCallback, options: ComposableToolBuilderOptions = {}) {
    this.gate = isStepGate(gateOrExecute) || isGateShaped(gateOrExecute) ? (gateOrExecute as StepGate) : undefined;
    this.strictMode = options.strictMode ?? false;
    this.stepTimeoutMs = options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
    this.snapshots = options.snapshots;
    this.onWarning = options.onWarning;
    this.validateArgs = options.validateArgs ?? true;
  }

  /** Bind the gate and the host's list of side-effecting tools that may be chained. */
  bind(options: { gate?: StepGate; sideEffectingTools?: SideEffectingTools }): void {
    if (options.gate) this.gate = options.gate;
    if (options.sideEffectingTools) this.sideEffecting = toToolSet(options.sideEffectingTools);
  }

  /** Whether a gate is bound (false with only a bare execute callback). */
  hasGate(): boolean {
    return this.gate !== undefined;
  }

  /** The tool the gate resolves for `name`, if any (a resolver that throws resolves nothing). */
  resolve(name: string): ITool | undefined {
    try {
      return this.gate?.resolve(name);
    } catch {
      return undefined;
    }
  }

  /** Check `name` against the chainability rule as the registry stands now. */
  check(name: string): ChainCheck {
    if (!this.gate) return { ok: false, refusal: needsGate() };
    const gate = this.gate;
    return checkChainable(name, gate.resolve(name), this.sideEffecting, namesOf(gate), gate.advice);
  }

  /**
   * Whether any step (through every combinator, compensations included) may have side effects, as
   * the registry stands now; undeclared and missing tools count as side-effecting, and so does a
   * step that is itself a composition, since a dry run does not run it either. So the answer is
   * also whether a dry run of the spec needs outputs in `dry.stepOutputs`: see
   * {@link ComposableToolBuilder.dryRunStubsNeeded} for which.
   */
  hasSideEffectingStep(spec: ComposableToolSpec): boolean {
    const checked = this.compile(spec);
    if (!checked.ok) return true;
    return checked.plan.hasSideEffects((name) => this.resolve(name)) || this.dryRunStubsNeeded(spec).length > 0;
  }

  /**
   * The steps a dry run of `spec` needs outputs for in `dry.stepOutputs`, by the key it reads
   * (the step's name, or its place: `steps[1].calls.a`): every step whose tool, as the registry
   * stands now, has side effects or is itself a composition. Each appears once, in spec order.
   * A spec that does not compile needs none (it cannot run).
   */
  dryRunStubsNeeded(spec: ComposableToolSpec): string[] {
    const checked = this.compile(spec);
    if (!checked.ok) return [];
    const labels = new Set<string>();
    for (const leaf of checked.plan.leaves) {
      // An undo never runs in a dry run: it is listed, and needs no output.
      if (leaf.undo) continue;
      const tool = this.resolve(leaf.tool);
      if (tool && (tool.hasSideEffects === true || tool.composition === true)) labels.add(leaf.label);
    }
    return [...labels];
  }

  /**
   * Check a spec, listing every problem every time: its structure against the published JSON
   * Schema, its meaning (references, the output schema, both `args` and `inputMapping`), and the
   * registry as the gate resolves it now (an unknown tool, with the closest names; a side-effecting
   * tool the host has not listed; a tool that declares nothing), and, given `options.inputSchema`,
   * each `$input` path against it. In lenient mode, `warnings` lists what was kept as written or
   * reads `undefined`; `build` hands the same warnings to `onWarning` and throws only on errors.
   * Never throws.
   *
   * @example
   * ```ts
   * const { valid, errors, warnings } = builder.validate(spec, { name: 'greet_user', inputSchema });
   * // errors: ['no tool "lookpu" in step "user"; did you mean lookup?']
   * // warnings: ['step "user": "$input.idd" reads "idd", which the inputSchema does not declare (did you mean id?); ...']
   * ```
   */
  validate(spec: ComposableToolSpec, options: ValidateOptions = {}): ValidationResult {
    try {
      const { errors, warnings } = this.problems(spec, options.name, options.inputSchema);
      const result: ValidationResult = errors.length ? { valid: false, errors } : { valid: true };
      if (warnings.length) result.warnings = warnings;
      return result;
    } catch (error) {
      return { valid: false, errors: [`the spec could not be checked: ${messageOf(error)}`] };
    }
  }

  /** Every problem and warning of `spec` built as `name` with `inputSchema`: the spec's own, then the registry's. */
  private problems(spec: ComposableToolSpec, name: string | undefined, inputSchema?: JSONSchemaObject): { errors: string[]; warnings: string[]; checked: CheckedSpec } {
    const checked = this.compile(spec, inputSchema);
    const errors = checked.ok ? [] : [...checked.errors];
    // A tool without a name cannot be listed or called.
    if (name !== undefined && (typeof name !== 'string' || name.trim() === '')) errors.unshift("the composite's name must not be empty");
    const plan = checked.plan;
    if (plan && this.gate) errors.push(...registryProblems(plan.leaves, this.gate, this.sideEffecting, name, this.validateArgs));
    return { errors, warnings: checked.warnings, checked };
  }

  /**
   * Build an ITool from a spec. Its input is checked against `inputSchema` before any step runs
   * (`input_invalid`), its output against `spec.outputSchema` when given (`output_invalid`), and
   * its `hasSideEffects` is the join of its steps' (false only when every step is pure).
   * With a `const` schema, the tool's argument type is inferred from it.
   *
   * @throws {@link SpecError} when the spec or a schema is invalid: a configuration error, caught at build time.
   */
  build<const S extends JSONSchemaObject>(name: string, description: string, inputSchema: S, spec: ComposableToolSpec): ITool<InputOf<S>> {
    const { errors, warnings, checked } = this.problems(spec, name, inputSchema);
    const inputProblems = schemaProblems(inputSchema, 'inputSchema');
    if (inputProblems) errors.push(...inputProblems);
    if (errors.length || !checked.ok) throw new SpecError(`Spec for "${name}" is invalid`, errors);
    for (const warning of warnings) this.onWarning?.(warning);
    const plan = checked.plan;
    const checkInput = schemaCheck(name, 'inputSchema', inputSchema);
    const checkOutput = spec.outputSchema ? schemaCheck(name, 'outputSchema', spec.outputSchema) : undefined;
    const id = `toolweave:${name}`;
    const door: DoorInfo = Object.freeze({ kind: 'composite', name });
    const builder = this;
    let computing = false;
    // What every run of this tool passes the plan, made on the first run and again only when the
    // gate, its `call` or the chainable list changes (see `settingsFit`), not once per run.
    let settings: RunSettings | undefined;
    const tool: ITool<InputOf<S>> = {
      id,
      name,
      displayName: name,
      description,
      inputSchema,
      ...(spec.outputSchema ? { outputSchema: spec.outputSchema } : {}),
      composition: true,
      stepTools: Object.freeze([...plan.tools]),
      get hasSideEffects() {
        // A composition that reaches itself adds nothing new to the join: answer pure while computing.
        if (computing) return false;
        computing = true;
        try {
          return plan.hasSideEffects((n) => builder.resolve(n));
        } finally {
          computing = false;
        }
      },
      // Not async: the run's own promise is handed back as it is, with no wrapper frame and no
      // extra await per call. Everything that can throw before the run starts is caught here.
      execute(args, context) {
        try {
          const gate = builder.gate;
          if (!gate) return Promise.resolve(needsGate());
          const problems = checkInput(args);
          if (problems) return Promise.resolve(failure('input_invalid', `Invalid input for "${name}": ${problems.join('; ')}`, { errors: problems }));
          const ctx = context ?? {};
          if (!settings || !settingsFit(settings, gate, builder.sideEffecting)) {
            settings = runSettings({
              gate,
              sideEffectingTools: builder.sideEffecting,
              snapshots: builder.snapshots,
              compositionId: id,
              door,
              // A composite's steps read each other's results: code, not the model, reads them.
              reader: 'code',
              precheck: true,
              validateArgs: builder.validateArgs,
            });
          }
          // A dry run the host asked for in the context: settings of its own, made for this run.
          const dry = dryRunOf(ctx);
          const chosen = dry ? { ...settings, dry, dryRun: true } : settings;
          // The outermost door of a run that may pause (its gate asks for approvals) records it.
          const running = runAsDoor(settings.gateSettings, ctx, name, args, () => plan.runWith(args, ctx, chosen, ctx.signal));
          return checkOutput ? running.then((result) => withCheckedOutput(name, checkOutput, result)) : running;
        } catch (error) {
          return Promise.resolve(failure('step_threw', `Composite "${name}" failed unexpectedly: ${messageOf(error)}`));
        }
      },
    };
    registerDoor(tool as ITool, () => builder.gate);
    return tool;
  }

  /**
   * Run a spec once. Every step is re-checked against the chainability rule, and the instance
   * that was checked is the one the gate runs. With `options.dry`, a step whose tool has side
   * effects, or is itself a composition, does not run: its output comes from `dry.stepOutputs`
   * and it is listed as an effect that would have run.
   */
  async runPipeline(spec: ComposableToolSpec, args: Record<string, unknown>, context: ToolExecutionContext, options: RunPipelineOptions = {}): Promise<ToolExecutionResult> {
    try {
      if (!this.gate) return needsGate();
      const checked = this.compile(spec);
      if (!checked.ok) return failure('spec_invalid', `The spec is invalid: ${checked.errors.join('; ')}`, { errors: checked.errors });
      return await checked.plan.run(args, context ?? {}, {
        gate: this.gate,
        sideEffectingTools: this.sideEffecting,
        snapshots: this.snapshots,
        dry: options.dry ?? dryRunOf(context ?? {}),
        reader: 'code',
        precheck: true,
        validateArgs: this.validateArgs,
        signal: options.signal ?? context?.signal,
      });
    } catch (error) {
      return failure('step_threw', `The pipeline failed unexpectedly: ${messageOf(error)}`);
    }
  }

  private compile(spec: ComposableToolSpec, inputSchema?: JSONSchemaObject): CheckedSpec {
    return checkAndCompile(spec, { strict: this.strictMode, stepTimeoutMs: this.stepTimeoutMs, ...(inputSchema ? { inputSchema } : {}) });
  }
}

/** A successful run whose output fails the outputSchema becomes `output_invalid` (keeping its effects). */
function withCheckedOutput(name: string, checkOutput: SchemaCheck, result: ToolExecutionResult): ToolExecutionResult {
  try {
    if (!result.success) return result;
    const bad = checkOutput(result.output);
    if (!bad) return result;
    return { ...failure('output_invalid', `Output of "${name}" does not match its outputSchema: ${bad.join('; ')}`, { errors: bad }), effects: result.effects };
  } catch (error) {
    return failure('step_threw', `Composite "${name}" failed unexpectedly: ${messageOf(error)}`);
  }
}

function needsGate(): ToolExecutionResult<never> {
  return failure('compose_needs_gate', 'This builder has only a bare execute callback; bind a StepGate (builder.bind({ gate })) to compose tools.');
}

/** A host-made object with the gate's two methods counts as a gate too. */
function isGateShaped(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as StepGate).resolve === 'function' && typeof (value as StepGate).run === 'function';
}

function schemaCheck(name: string, which: string, schema: JSONSchemaObject): SchemaCheck {
  try {
    return compileSchema(schema);
  } catch (error) {
    throw new SpecError(`The ${which} of "${name}" is not valid JSON Schema`, [messageOf(error)]);
  }
}
