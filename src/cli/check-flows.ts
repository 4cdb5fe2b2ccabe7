/**
 * The `flows` block of `toolweave check`: before anything runs, which side-effecting calls
 * untrusted data can steer, for a person to review. Every line reads `ok   flows ...` (or `warn`,
 * `FAIL`):
 *
 * - `untrusted sources`: the tools whose output is untrusted, by server (`openWorldHint` marks one
 *   a trusted server serves; `only <paths>` a trusted tool whose named parts are not). A session
 *   that has read any of them steers every argument its model gives from then on: its label joins
 *   all it read, so each of them can steer every argument below that is free.
 * - `trusted sources`: the tools whose output is trusted (a declassifier's whatever its arguments).
 * - `effect <tool> (<server>)`: each side-effecting tool served (pure ones are never refused for
 *   their inputs), its arguments as its policy sorts them: those that must be trusted, and what a
 *   call that untrusted data steers does then (`asks` a person through approvals, or `refused`),
 *   and the free ones; then what decides that the call is made (a condition, a list, what a script
 *   read: inside a run only).
 * - `script <name>`: the side-effecting tools a config script may call; each call carries the
 *   script's input (the session's label) and every answer it received before the call.
 * - `composite <name>, step "<step>" calls <tool>`: for each argument of a side-effecting step,
 *   what may feed it: `$input` (the caller's data: the session's label) and the composite's own
 *   steps whose output is untrusted, followed through references, conditions, lists, checks and
 *   retries. It over-approximates (a reference to a gather or a pipe is fed by all of it; a nested
 *   door is untrusted as a whole), never under. When an untrusted step of its own feeds what must
 *   be trusted, the call asks (or is refused: then the line is a `warn`) whenever that step has run.
 *
 * `FAIL` lines are names that match nothing (a typo would leave a tool unguarded or a policy
 * dead) and settings that let through what they mean to stop; `warn` lines are settings that
 * work, but not as they read. Only `FAIL` fails the check.
 */
import type { ITool } from '../index.js';
import type { McpTool } from '../mcp/index.js';
import type { CompositeFile, FlowPolicyConfig, FlowsConfig, ProxyConfig } from './config-types.js';
import { RESUME_RUN_TOOL_NAME } from './approvals/queued-doors.js';
import { approvalSettings } from './approvals/settings.js';
import { trustsServerTool } from './flows-config.js';
import { GET_OBSERVATION_TOOL_NAME, OWN_TOOL_NAMES } from './own-names.js';
import { allowedEffects } from './snippets.js';
import type { Upstream } from './upstream.js';

/** What the flows block found: its lines, and whether none of them is a failure. */
export interface FlowsCheck {
  /** Each starts `ok   flows`, `warn flows` or `FAIL flows`. */
  lines: string[];
  /** No line is a failure. */
  ok: boolean;
}

/** An upstream tool as served: its server, its own entry (with its annotations). */
interface Served {
  server: string;
  tool: McpTool;
}

/** How far a tool's output is trusted. */
type Trust = 'trusted' | 'declassifier' | 'fields' | 'untrusted' | 'open world';

/**
 * The flows block for `config` (nothing without `flows`).
 *
 * @param config - the proxy's config
 * @param upstreams - the servers, started (their tools as they are now)
 * @param registry - every tool the check serves by name: upstream tools, scripts, built composites
 * @param composites - the composite files
 */
export function checkFlows(config: ProxyConfig, upstreams: readonly Upstream[], registry: ReadonlyMap<string, ITool>, composites: readonly CompositeFile[]): FlowsCheck {
  const flows = config.flows;
  if (!flows) return { lines: [], ok: true };
  const served = servedTools(upstreams, registry);
  const trust = new Map([...served].map(([name, { server, tool }]) => [name, trustOf(flows, server, tool)]));
  const lines: string[] = [];
  const untrusted = [...trust.values()].filter((t) => t === 'untrusted' || t === 'open world' || t === 'fields').length;
  lines.push(`ok   flows untrusted sources (${untrusted}; a session that read one steers every argument its model gives from then on): ${byServer(served, trust, false, flows)}`);
  lines.push(`ok   flows trusted sources: ${byServer(served, trust, true, flows)}`);
  const approvals = approvalSettings(config).mode;
  const violation = flows.onViolation === 'refuse' || approvals === 'none' ? 'refused' : 'asks';
  const policies = flows.policies ?? {};
  const policyOf = (name: string) => (Object.hasOwn(policies, name) ? policies[name] : undefined);
  const steer = untrusted === 0 ? 'nothing untrusted is served' : `any of the ${untrusted} untrusted sources can steer`;
  for (const [name, { server, tool }] of served) {
    if (tool.hasSideEffects === false) continue;
    const asksAll = flows.askEveryEffect === true && approvals !== 'none' && tool.hasSideEffects === true;
    lines.push(`ok   flows effect ${name} (${server}${tool.hasSideEffects === undefined ? ', undeclared: judged as side-effecting' : ''}): ${effectLine(tool, policyOf(name), violation, steer)}${asksAll ? '; every call asks (askEveryEffect)' : ''}`);
  }
  for (const [name, snippet] of Object.entries(config.scripts ?? {})) {
    const effects = allowedEffects(snippet, config.sideEffectingTools ?? []);
    if (effects.length > 0) lines.push(`ok   flows script ${name} may call ${effects.join(', ')}: each call carries its input (the session) and every answer it received before the call`);
  }
  for (const composite of composites) {
    if (registry.get(composite.name)?.composition !== true) continue;
    lines.push(...compositeLines(composite, registry, trust, policyOf, violation));
  }
  lines.push(...nameProblems(config, flows, served, registry, upstreams));
  if (flows.onViolation !== 'refuse' && approvals === 'none') {
    // Not a failure: it fails closed (nothing untrusted data steers runs), and saying so is one word.
    lines.push('warn flows onViolation is ask (the default) but approvals is none: no one can be asked, so every violation is refused; set approvals to elicit or queue to ask, or onViolation: refuse to say it');
  }
  if (flows.askEveryEffect === true && approvals === 'none') {
    // A failure: it fails open, since the calls it means to put before a person run without a question.
    lines.push('FAIL flows askEveryEffect is set but approvals is none: no one can be asked, so side-effecting calls whose arguments are trusted run without a question; set approvals to elicit or queue');
  }
  return { lines, ok: !lines.some((line) => line.startsWith('FAIL')) };
}

/** The upstream tools served, by name, in config order (a name lost in a collision is not). */
function servedTools(upstreams: readonly Upstream[], registry: ReadonlyMap<string, ITool>): Map<string, Served> {
  const served = new Map<string, Served>();
  for (const upstream of upstreams) {
    for (const tool of upstream.tools) {
      const held = registry.get(tool.name);
      if (!served.has(tool.name) && held !== undefined && held.composition !== true) served.set(tool.name, { server: upstream.name, tool });
    }
  }
  return served;
}

/** As the gate judges it (see `GateFlows.outputOf`): a declassifier first, then trust, then the parts named untrusted. */
function trustOf(flows: FlowsConfig, server: string, tool: McpTool): Trust {
  if (flows.declassifiers?.includes(tool.name)) return 'declassifier';
  if (flows.trustedTools?.includes(tool.name) || tool.trustedOutput === true || trustsServerTool(flows, server, tool)) {
    return (tool.untrustedFields ?? []).length + fieldsOf(flows, tool.name).length > 0 ? 'fields' : 'trusted';
  }
  return flows.trustedServers?.includes(server) ? 'open world' : 'untrusted';
}

/** The tools whose output is (un)trusted, grouped by server: `mail: read_inbox, send_email; web: fetch (openWorldHint)`. */
function byServer(served: Map<string, Served>, trust: Map<string, Trust>, trusted: boolean, flows: FlowsConfig): string {
  const groups = new Map<string, string[]>();
  for (const [name, { server, tool }] of served) {
    const t = trust.get(name)!;
    const fields = [...(tool.untrustedFields ?? []), ...fieldsOf(flows, name)].join(', ');
    const mark = { trusted: '', declassifier: ' (declassifier)', fields: trusted ? ` (but not ${fields})` : ` (only ${fields})`, untrusted: '', 'open world': ' (openWorldHint)' }[t];
    if (t === 'fields' || (t === 'trusted' || t === 'declassifier') === trusted) groups.set(server, [...(groups.get(server) ?? []), `${name}${mark}`]);
  }
  return groups.size === 0 ? 'none' : [...groups].map(([server, names]) => `${server}: ${names.join(', ')}`).join('; ');
}

/** The arguments a tool's inputSchema declares. */
function argumentsOf(tool: ITool): string[] {
  const properties = tool.inputSchema?.properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
}

/** One effect's arguments as its policy sorts them (see `GateFlows.decide`). */
function effectLine(tool: ITool, policy: FlowPolicyConfig | undefined, violation: string, steer: string): string {
  const declared = argumentsOf(tool);
  const listed = Array.isArray(policy?.trusted) ? policy.trusted : undefined;
  const parts: string[] = [];
  if (listed === undefined) parts.push(`every argument${declared.length ? ` (${declared.join(', ')})` : ''} must be trusted, else ${violation}`);
  else {
    const free = declared.filter((name) => !listed.includes(name));
    if (listed.length) parts.push(`${listed.join(', ')} must be trusted, else ${violation}`);
    // Any argument the policy does not list is free, declared or not.
    parts.push(`any other argument${free.length ? ` (${free.join(', ')})` : ''} is free: ${steer} it`);
  }
  parts.push(policy?.control === false ? 'what decides the call is free' : `what decides the call (inside a run) must be trusted, else ${violation}`);
  if (policy?.readersInclude !== undefined) parts.push(`data goes only to a ${policy.readersInclude} its readers include, else refused`);
  return parts.join('; ');
}

/** Names in `flows` that match nothing: FAIL lines; a policy a pure tool makes dead: a warning. */
function nameProblems(config: ProxyConfig, flows: FlowsConfig, served: Map<string, Served>, registry: ReadonlyMap<string, ITool>, upstreams: readonly Upstream[]): string[] {
  const problems: string[] = [];
  for (const server of flows.trustedServers ?? []) {
    if (!Object.hasOwn(config.servers, server)) problems.push(`FAIL flows trustedServers names "${server}", which is not a server of this config (its servers: ${Object.keys(config.servers).join(', ')})`);
  }
  // A server that is not up lists only the tools its config names: a name may be one of its others.
  const down = upstreams.filter((upstream) => upstream.state !== 'up').map((upstream) => upstream.name);
  const unknownNote = down.length ? ` (or one of server ${down.join(', ')}, which is not up)` : '';
  const lists: [string, readonly string[]][] = [
    ['policies', Object.keys(flows.policies ?? {})],
    ['trustedTools', flows.trustedTools ?? []],
    ['declassifiers', flows.declassifiers ?? []],
    ['untrustedFields', Object.keys(flows.untrustedFields ?? {})],
    ['readers', Object.keys(flows.readers ?? {})],
  ];
  for (const [field, names] of lists) {
    for (const name of names) {
      const door = registry.get(name);
      // The pager's output carries the labels its pages were stored with, whatever the config says of
      // it; a composite, a script or the proxy's other doors are never judged or labelled themselves:
      // the calls inside them are.
      if (door === undefined && name === GET_OBSERVATION_TOOL_NAME) {
        problems.push(`warn flows ${field} names "${name}", the proxy's pager: what it pages back keeps the label it was stored with, so this does nothing`);
      } else if (door?.composition === true || (door === undefined && [...OWN_TOOL_NAMES, RESUME_RUN_TOOL_NAME].includes(name))) {
        problems.push(`FAIL flows ${field} names "${name}", which is a door (a composite, a script or the proxy's own): the gate judges and labels the calls inside it, not the door; name the tools it calls`);
      } else if (!served.has(name)) problems.push(`FAIL flows ${field} names "${name}", which no server serves${unknownNote}`);
    }
  }
  for (const [name, policy] of Object.entries(flows.policies ?? {})) {
    const entry = served.get(name);
    if (!entry) continue;
    if (entry.tool.hasSideEffects === false) problems.push(`warn flows policies names "${name}", which is pure: pure calls are never refused for their inputs, so its policy does nothing`);
    if (down.includes(entry.server)) continue;
    const declared = argumentsOf(entry.tool);
    const named = [...(Array.isArray(policy.trusted) ? policy.trusted.map((arg) => ['trusted', arg]) : []), ...(policy.readersInclude !== undefined ? [['readersInclude', policy.readersInclude]] : [])];
    for (const [field, arg] of named) {
      if (!declared.includes(arg)) problems.push(`FAIL flows policies.${name}.${field} names "${arg}", which is not an argument of ${name} (its arguments: ${declared.join(', ') || 'none'})`);
    }
  }
  return problems;
}

/** What may feed a value: `$input`, and the composite's steps whose output is untrusted, by how they read. */
type Sources = Set<string>;

/** What references read where a node sits. */
interface Scope {
  /** What `$prev` reads. */
  prev: Sources;
  /** What `$item`, `$index` and their holes read (inside a for_each template). */
  item: Sources;
  /** What the `{result}` hole reads (a pipe stage after the first, a check). */
  result: Sources;
  /** What decided that the node runs. */
  control: Sources;
}

/** A side-effecting call in a composite: what may feed each of its arguments, and what decides it. */
interface Effect {
  step: string;
  tool: ITool;
  args: Map<string, Sources>;
  control: Sources;
}

const INPUT = '$input (the session)';
const NONE: Sources = new Set();
/** Every reference a string may hold (and a few it cannot: reading too much is safe, too little is not). */
const REFERENCE = /\$(input|prev|item|index)(?![\w$])|\$steps(?:\[(\d+)\]|\.([^.[\]'"`\s{}()?:]+)|\["((?:[^"\\]|\\.)*)"\]|\['([^']*)'\])|\{(item|index|result)\}/gu;

const union = (...sets: Sources[]): Sources => new Set(sets.flatMap((set) => [...set]));

/** The composite's side-effecting steps, one line each. */
function compositeLines(composite: CompositeFile, registry: ReadonlyMap<string, ITool>, trust: Map<string, Trust>, policyOf: (name: string) => FlowPolicyConfig | undefined, violation: string): string[] {
  const walk = new CompositeWalk(registry, trust);
  walk.run(composite.spec.steps);
  return [...walk.effects.values()].map(({ step, tool, args, control }) => {
    const policy = policyOf(tool.name);
    const needed = (arg: string) => policy?.trusted === undefined || policy.trusted === '*' || policy.trusted.includes(arg);
    // Its own untrusted step feeding what must be trusted: every run that reaches the call asks, or is refused.
    let steered = false;
    const shown = (sources: Sources, trusted: boolean) => {
      if (trusted && [...sources].some((source) => source !== INPUT)) steered = true;
      return sources.size ? [...sources].join(', ') : 'nothing untrusted';
    };
    const each = [...args].map(([arg, sources]) => `${arg}${needed(arg) ? ' (must be trusted)' : ''} ← ${shown(sources, needed(arg))}`);
    each.push(`what decides the call${policy?.control === false ? '' : ' (must be trusted)'} ← ${shown(control, policy?.control !== false)}`);
    const head = steered && violation === 'refused' ? 'warn' : 'ok  ';
    const note = steered ? ` (${violation === 'refused' ? 'refused' : 'it asks'} whenever the steps feeding what must be trusted have run)` : '';
    return `${head} flows composite ${composite.name}, step ${step} calls ${tool.name}: ${each.join('; ')}${note}`;
  });
}

/**
 * A walk over a composite's spec in the order it runs, that finds what may feed each node's
 * output as the engine labels it (`src/engine/labels.ts`, `common-fields.ts`, the combinators).
 */
class CompositeWalk {
  readonly effects = new Map<object, Effect>();
  private readonly named = new Map<string, Sources>();
  private readonly steps: Sources[] = [];

  constructor(
    private readonly registry: ReadonlyMap<string, ITool>,
    private readonly trust: Map<string, Trust>,
  ) {}

  /** Walk the top-level steps: each one's `$prev` is the step before. */
  run(steps: unknown): void {
    if (!Array.isArray(steps)) return;
    for (const step of steps) this.steps.push(this.node(step, { prev: this.steps.at(-1) ?? NONE, item: NONE, result: NONE, control: NONE }));
  }

  /** What may feed what `value` (a mapping, a condition, a list) reads. */
  private reads(value: unknown, scope: Scope): Sources {
    if (Array.isArray(value)) return union(...value.map((v) => this.reads(v, scope)));
    if (typeof value === 'object' && value !== null) return union(...Object.values(value).map((v) => this.reads(v, scope)));
    // `$$` makes the whole string literal text.
    if (typeof value !== 'string' || value.startsWith('$$')) return NONE;
    const found: Sources[] = [];
    for (const match of value.matchAll(REFERENCE)) {
      const [, root, position, dotted, quoted, single, hole] = match;
      const read = root ?? hole;
      if (read === 'input') found.push(new Set([INPUT]));
      else if (read === 'prev') found.push(scope.prev);
      else if (read === 'result') found.push(scope.result);
      else if (read !== undefined) found.push(scope.item);
      else if (position !== undefined) found.push(this.steps[Number(position)] ?? NONE);
      else found.push(this.named.get(dotted ?? single ?? safeName(quoted)) ?? NONE);
    }
    return union(...found);
  }

  /** What may feed `node`'s output; its `when` and retries decide its calls. */
  private node(node: unknown, scope: Scope): Sources {
    if (typeof node !== 'object' || node === null) return NONE;
    const record = node as Record<string, unknown>;
    const when = record.when !== undefined ? this.reads(record.when, scope) : NONE;
    const control = union(scope.control, when);
    let out = this.body(record, { ...scope, control });
    const retry = record.retry as { attempts?: number } | undefined;
    // Another try is made because the last one failed: what that failure carried decides its calls.
    if ((retry?.attempts ?? 1) > 1) out = this.body(record, { ...scope, control: union(control, out) });
    out = union(out, when);
    if (typeof record.name === 'string') this.named.set(record.name, union(this.named.get(record.name) ?? NONE, out));
    return out;
  }

  private body(node: Record<string, unknown>, scope: Scope): Sources {
    if (typeof node.tool === 'string') return this.leaf(node, scope);
    switch (node.combinator) {
      case 'gather':
        return union(...Object.values((node.calls ?? {}) as object).map((call) => this.node(call, scope)));
      case 'for_each': {
        const items = typeof node.items === 'string' ? this.reads(node.items, scope) : this.node(node.items, scope);
        // Which items there are decides which calls are made.
        return union(items, this.node(node.template, { ...scope, item: items, control: union(scope.control, items) }));
      }
      case 'pipe': {
        let last = scope.prev;
        let out: Sources = NONE;
        for (const [index, stage] of (Array.isArray(node.stages) ? node.stages : []).entries()) {
          last = this.node(stage, { ...scope, prev: last, result: index > 0 ? last : NONE });
          out = union(out, last);
        }
        return out;
      }
      case 'try_and_check': {
        const once = (control: Sources) => {
          const work = this.node(node.do, { ...scope, control });
          return union(work, this.node(node.check, { ...scope, prev: work, result: work, control }));
        };
        const first = once(scope.control);
        // A failed check makes another attempt: what it read decides the calls after.
        return typeof node.attempts === 'number' && node.attempts > 1 ? once(union(scope.control, first)) : first;
      }
      case 'scope':
      case 'annotate':
        return this.node(node.do, scope);
      default:
        return NONE;
    }
  }

  /** A call: its tool's own output, what its arguments read and what decided it (a declassifier's: none). */
  private leaf(node: Record<string, unknown>, scope: Scope, label?: string): Sources {
    const name = node.tool as string;
    const tool = this.registry.get(name);
    const mapping = node.inputMapping ?? node.args;
    const args = this.reads(mapping, scope);
    const step = `"${label ?? (typeof node.name === 'string' ? node.name : name)}"`;
    if (tool && tool.composition !== true && tool.hasSideEffects !== false) this.effect(node, step, tool, mapping, scope);
    const trust = this.trust.get(name);
    if (trust === 'declassifier') return NONE;
    // A nested door (a composite, a script) answers all it read: untrusted as a whole, to be safe.
    const own = trust === 'trusted' ? NONE : new Set([`step ${step} (${name}${tool?.composition === true ? ', a door' : ''})`]);
    const out = union(own, args, scope.control);
    const undo = node.compensate as { tool?: unknown; args?: unknown } | undefined;
    // An undo reads the step's own output as `$prev`.
    if (typeof undo?.tool === 'string') this.leaf(undo, { ...scope, prev: out }, `${String(node.name ?? name)} (undo)`);
    return out;
  }

  /** Record a side-effecting call: each argument's feeders (all of them for a mapping that is not an object). */
  private effect(node: object, step: string, tool: ITool, mapping: unknown, scope: Scope): void {
    const args = new Map<string, Sources>();
    if (typeof mapping === 'object' && mapping !== null && !Array.isArray(mapping)) {
      for (const [arg, value] of Object.entries(mapping)) args.set(arg, this.reads(value, scope));
    } else {
      const whole = this.reads(mapping, scope);
      for (const arg of argumentsOf(tool).length ? argumentsOf(tool) : ['(arguments)']) args.set(arg, whole);
    }
    const before = this.effects.get(node);
    // A retried call is walked twice: it keeps what both walks found.
    if (before) for (const [arg, sources] of args) args.set(arg, union(before.args.get(arg) ?? NONE, sources));
    this.effects.set(node, { step, tool, args, control: union(before?.control ?? NONE, scope.control) });
  }
}

/** A `$steps["..."]` name with its JSON escapes read (a bad escape names no step). */
function safeName(quoted: string | undefined): string {
  try {
    return JSON.parse(`"${quoted ?? ''}"`) as string;
  } catch {
    return '';
  }
}

/** The config's untrusted fields of tool `name`, its own entry only (a tool may be named `constructor`). */
function fieldsOf(flows: FlowsConfig, name: string): readonly string[] {
  const byTool = flows.untrustedFields;
  return byTool !== undefined && Object.hasOwn(byTool, name) ? byTool[name] : [];
}
