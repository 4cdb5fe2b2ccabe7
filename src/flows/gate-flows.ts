/**
 * A gate's rules for untrusted data, made once from the host's `flows` option: which outputs are
 * trusted, the label of a call's output, the label of a session, and the decision about a call.
 */
import type { ITool, ToolExecutionContext } from '../tool.js';
import { joinLabels, sourceLabel, TRUSTED, type Label } from './label.js';
import { flatten, joinTree, ownLabel, partOf, treeWithParts, type LabelTree } from './label-tree.js';
import { DEFAULT_MAX_FLOW_SESSIONS, type ArgProvenance, type FlowDecision, type FlowOptions, type FlowPolicy, type Provenance } from './options.js';
import { SessionLabels } from './session-labels.js';
import { readStoredLabel, UNREADABLE_LABEL } from './stored-labels.js';

/** What a gate decided about a call untrusted data may steer. */
export interface FlowVerdict {
  /** Run it, ask a person, or refuse it. */
  decision: FlowDecision;
  /** Where each argument came from. */
  provenance: Provenance;
  /** What decided that the call is made. */
  control: ArgProvenance;
  /** Why, when it is not `allow`: the arguments that are not trusted, or the policy's own word. */
  reason?: string;
}

/** The label of a tool's own output at a step (see {@link GateFlows.ownOutput}). */
export interface OwnOutput {
  readonly tree: LabelTree;
  /** The tool is a declassifier: its output is trusted whatever its arguments. */
  readonly declassified: boolean;
}

/** See the module comment. */
export class GateFlows {
  private readonly trusted: ReadonlySet<string>;
  private readonly declassifiers: ReadonlySet<string>;
  private readonly sessions: SessionLabels;
  /** Ask a person about a violation (else refuse it). */
  readonly asks: boolean;
  /** Ask about every side-effecting call, not only violations. */
  readonly asksEveryEffect: boolean;

  /**
   * @param options - the host's `flows`
   * @param scope - the scope of a context: the session its label is kept under
   */
  constructor(
    private readonly options: FlowOptions,
    private readonly scope: (context: ToolExecutionContext) => string,
  ) {
    this.trusted = new Set(options.trustedTools ?? []);
    this.declassifiers = new Set(options.declassifiers ?? []);
    const max = options.maxSessions ?? DEFAULT_MAX_FLOW_SESSIONS;
    this.sessions = new SessionLabels(Number.isFinite(max) && max >= 1 ? Math.floor(max) : DEFAULT_MAX_FLOW_SESSIONS);
    this.asks = options.onViolation !== 'refuse';
    this.asksEveryEffect = options.askEveryEffect === true;
  }

  /** Whether `tool`'s output is trusted (before its arguments' labels are joined in). */
  trusts(tool: ITool): boolean {
    return this.trusted.has(tool.name) || tool.trustedOutput === true;
  }

  /**
   * The label of what `tool` called at `step` answered: its own (see {@link GateFlows.ownOutput}),
   * joined with its arguments' and with what decided the call is made, since a trusted formatter
   * of untrusted text answers untrusted text. A declassifier's output is trusted whatever its
   * arguments (and readable only by whoever may read them); a call a person approved with its
   * provenance before them is trusted, as far as its arguments go.
   *
   * @param own - `ownOutput(tool, step)`, when the caller keeps it (a compiled step does)
   */
  outputOf(tool: ITool, step: string, args: Label, control: Label, approved: boolean, own: OwnOutput = this.ownOutput(tool, step)): LabelTree {
    if (approved) return own.tree;
    const read = joinLabels(args, control);
    if (!own.declassified) return joinTree(own.tree, read);
    // Trusted whatever its arguments, but not readable by more than they are: a lookup keyed by a
    // secret tells whoever reads its answer something of the secret.
    return read.readers === undefined ? own.tree : joinTree(own.tree, sourceLabel(tool.name, step, true, read.readers));
  }

  /**
   * The label of `tool`'s output at `step` before its arguments' are joined in: trusted or not,
   * with the parts it or the host names as untrusted, readable by whom they say. The same for
   * every call of one tool instance at one step, so a compiled step asks once. A tool that cannot
   * say (a getter of its `readers` or `untrustedFields` throws, a field is not a string) answers
   * untrusted data readable by no one: this is asked as its call ends, inside the tool's callback,
   * where a throw would leave the call unanswered.
   */
  ownOutput(tool: ITool, step: string): OwnOutput {
    let name: unknown;
    try {
      name = tool.name;
      return this.ownOutputNamed(tool, name as string, step);
    } catch {
      return { tree: sourceLabel(typeof name === 'string' ? name : '(a tool that cannot be read)', step, false, []), declassified: false };
    }
  }

  private ownOutputNamed(tool: ITool, name: string, step: string): OwnOutput {
    const readers = ownEntry(this.options.readers, name) ?? tool.readers;
    if (this.declassifiers.has(name)) return { tree: sourceLabel(name, step, true, readers), declassified: true };
    const own = sourceLabel(name, step, this.trusts(tool), readers);
    return { tree: own.trusted ? this.withUntrustedParts(tool, own, step, readers) : own, declassified: false };
  }

  /** A trusted tool's output labelled `own`, with the parts it or the host names as untrusted. */
  private withUntrustedParts(tool: ITool, own: Label, step: string, readers: readonly string[] | undefined): LabelTree {
    const parts = [...(tool.untrustedFields ?? []), ...(ownEntry(this.options.untrustedFields, tool.name) ?? [])];
    return parts.length > 0 ? treeWithParts(own, parts, sourceLabel(tool.name, step, false, readers)) : own;
  }

  /** The label of the arguments a caller gives a door with `context` when a model writes them: the session's, unless the host says otherwise. */
  argumentsOf(context: ToolExecutionContext): Label {
    const said = (context.flows as { arguments?: unknown } | undefined)?.arguments;
    if (said === undefined) return this.sessions.labelOf(this.scopeOf(context));
    if (said === 'trusted') return TRUSTED;
    if (said === 'untrusted') return sourceLabel('(arguments)', 'host', false);
    // A label the host kept (a durable run's, from the process that started it), checked whole.
    return readStoredLabel(said) ?? UNREADABLE_LABEL;
  }

  /** What a door handed back to the caller with `context` carried: the session has seen it. */
  handedBack(context: ToolExecutionContext, label: Label): void {
    if ((context.flows as { arguments?: unknown } | undefined)?.arguments === 'trusted') return;
    this.sessions.mark(this.scopeOf(context), label);
  }

  private scopeOf(context: ToolExecutionContext): string {
    try {
      const scope: unknown = this.scope(context ?? {});
      return typeof scope === 'string' ? scope : '';
    } catch {
      return '';
    }
  }

  /**
   * The decision about side-effecting `tool` called with `args` labelled `argTree` at `step`, its
   * making decided by data labelled `control`.
   */
  decide(tool: ITool, args: Record<string, unknown>, argTree: LabelTree, control: Label, step: string): FlowVerdict {
    const provenance = provenanceOf(args, argTree);
    const controlShown = shown(control);
    const policy: FlowPolicy | undefined = Object.hasOwn(this.options.policies ?? {}, tool.name) ? this.options.policies![tool.name] : undefined;
    const every = policy?.trusted === undefined || policy.trusted === '*';
    const names: readonly string[] = every ? Object.keys(provenance) : (policy.trusted as readonly string[]);
    const untrusted = names.filter((name) => Object.hasOwn(provenance, name) && !provenance[name].trusted);
    // Which arguments a call is given is chosen by whoever wrote the object (its own label, joined
    // into each argument's): a call with none, or without one the policy names, is steered by
    // that choice alone (a model that read a mail calling a tool of no arguments). With none, that
    // choice is only whether the call is made: a policy that lets anything decide that lets it run.
    const leftOut = every ? names.length === 0 && policy?.control !== false : names.some((name) => !Object.hasOwn(provenance, name));
    if (leftOut && !ownLabel(argTree).trusted) untrusted.push('(which arguments it is given)');
    if (policy?.control !== false && !control.trusted) untrusted.push('(what decided the call is made)');
    const verdict = (decision: FlowDecision, reason?: string): FlowVerdict => ({ decision, provenance, control: controlShown, ...(reason !== undefined ? { reason } : {}) });
    if (untrusted.length > 0) return verdict(this.asks ? 'ask' : 'refuse', `untrusted data steers ${untrusted.join(', ')}`);
    if (policy?.check === undefined) return verdict('allow');
    let decision: unknown;
    try {
      decision = policy.check({ tool, args, provenance, control: controlShown, step });
    } catch {
      return verdict('refuse', 'the policy check failed');
    }
    if (decision === 'allow' || decision === 'ask') return verdict(decision, decision === 'ask' ? 'the policy asks' : undefined);
    return verdict('refuse', decision === 'refuse' ? 'the policy refuses it' : 'the policy answered something malformed');
  }
}

/**
 * The host's entry for tool `name` in `byTool`, its own only: a tool named `constructor` or
 * `toString` (an upstream server chooses its names) would otherwise read a function from
 * `Object.prototype`, and spreading it threw as the call ended, leaving the call unanswered.
 */
function ownEntry<T>(byTool: Readonly<Record<string, T>> | undefined, name: string): T | undefined {
  return byTool !== undefined && Object.hasOwn(byTool, name) ? byTool[name] : undefined;
}

/** Each argument's label, by the argument's name: every part of it joined, the object's own label too. */
export function provenanceOf(args: Record<string, unknown>, tree: LabelTree): Provenance {
  const provenance: Provenance = {};
  const own = ownLabel(tree);
  for (const key of Object.keys(args)) {
    Object.defineProperty(provenance, key, { value: shown(joinLabels(flatten(partOf(tree, key)), own)), enumerable: true, writable: true, configurable: true });
  }
  return provenance;
}

/** A label as a request shows it: plain, copied data. */
export function shown(label: Label): ArgProvenance {
  return {
    trusted: label.trusted,
    sources: label.sources.map((s) => ({ tool: s.tool, step: s.step })),
    ...(label.moreSources !== undefined ? { moreSources: label.moreSources } : {}),
    ...(label.readers !== undefined ? { readers: [...label.readers] } : {}),
  };
}
