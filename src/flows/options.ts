/**
 * What a host tells the gate about untrusted data (`createStepGate({ flows })`): which tools give
 * trusted output, what each side-effecting tool needs trusted, and what a violation does. Policies
 * are the host's: nothing a model writes, and nothing a tool returns, can change them.
 */
import type { ITool } from '../tool.js';
import type { LabelSource } from './label.js';

/**
 * Where one argument of a call came from.
 *
 * @category Untrusted data
 */
export interface ArgProvenance {
  /** Built only from trusted data. */
  trusted: boolean;
  /** The calls it came from (none: the user's own words, or literals the host wrote). */
  sources: LabelSource[];
  /** How many more sources there were than `sources` lists. */
  moreSources?: number;
  /** Who may read it (absent: anyone). */
  readers?: string[];
}

/**
 * Where each argument of a call came from, by the argument's name.
 *
 * @category Untrusted data
 */
export type Provenance = Record<string, ArgProvenance>;

/**
 * What a policy function is asked about.
 *
 * @category Untrusted data
 */
export interface FlowCall {
  /** The tool about to run. */
  tool: ITool;
  /** Its arguments. */
  args: Record<string, unknown>;
  /** Where each argument came from. */
  provenance: Provenance;
  /** What decided that the call is made at all (the conditions, checks and lists on its way). */
  control: ArgProvenance;
  /** The step that calls it. */
  step: string;
}

/**
 * What a policy decides about a call: let it run, refuse it, or ask a person.
 *
 * @category Untrusted data
 */
export type FlowDecision = 'allow' | 'refuse' | 'ask';

/**
 * What one side-effecting tool needs trusted.
 *
 * @category Untrusted data
 */
export interface FlowPolicy {
  /** The arguments that must be trusted, or `'*'` for all of them. Default: all. */
  trusted?: readonly string[] | '*';
  /** Whether what decided that the call is made must be trusted too. Default true. */
  control?: boolean;
  /** Anything else, asked once the arguments above are trusted. A throw or any other answer refuses. */
  check?: (call: FlowCall) => FlowDecision;
}

/**
 * The host's rules for untrusted data; see the guide's "Untrusted data".
 *
 * @category Untrusted data
 */
export interface FlowOptions {
  /** Tools whose output is trusted (besides those declaring `trustedOutput: true`). Every other tool's output is untrusted. */
  trustedTools?: readonly string[];
  /**
   * Tools whose output is trusted whatever their arguments: an attacker can only choose among
   * trusted values with them (a lookup in the user's own address book).
   */
  declassifiers?: readonly string[];
  /** Parts of trusted tools' outputs that are not trusted, by tool (`{ get_transactions: ['*.subject'] }`), besides `ITool.untrustedFields`. */
  untrustedFields?: Readonly<Record<string, readonly string[]>>;
  /** Who may read each tool's output, by tool, besides `ITool.readers`. */
  readers?: Readonly<Record<string, readonly string[]>>;
  /**
   * What each side-effecting tool needs trusted, by tool. A side-effecting tool without one needs
   * every argument, and what decided that it is called, trusted. Pure tools are never refused for
   * their inputs.
   */
  policies?: Readonly<Record<string, FlowPolicy>>;
  /**
   * What a call untrusted data steers does: `'ask'` (the default) asks the gate's approval hook, once
   * per call, showing where each argument came from, and refuses when the gate has none; `'refuse'`
   * refuses it (`flow_untrusted`).
   */
  onViolation?: 'ask' | 'refuse';
  /**
   * Ask the approval hook about every side-effecting call, not only those untrusted data steers
   * (each request then carries the call's provenance). Default false: a call whose arguments are
   * trusted runs without a question.
   */
  askEveryEffect?: boolean;
  /** The most sessions whose label is kept in memory (default {@link DEFAULT_MAX_FLOW_SESSIONS}). */
  maxSessions?: number;
}

/**
 * The default number of sessions whose label a gate keeps; past it the oldest is forgotten, and
 * reads as untrusted from then on.
 *
 * @category Untrusted data
 */
export const DEFAULT_MAX_FLOW_SESSIONS = 10_000;

/**
 * A policy check that refuses sending data to someone who may not read it.
 *
 * Every argument whose data says who may read it, and what decided the call is made, must be
 * readable by the value (or each value) of argument `recipient`.
 *
 * @example
 * ```ts
 * createStepGate({ resolve, flows: { policies: { send_email: { trusted: ['to'], check: readersInclude('to') } } } });
 * ```
 *
 * @category Untrusted data
 */
export function readersInclude(recipient: string): (call: FlowCall) => FlowDecision {
  return (call) => {
    const to = call.args[recipient];
    const recipients = Array.isArray(to) ? to : [to];
    // What decided the call is sent with it (a mail sent only when a secret says so tells its
    // recipient what the secret said), so it must be readable by the recipients too.
    for (const provenance of [...Object.values(call.provenance), call.control]) {
      const readers = provenance.readers;
      if (readers === undefined) continue;
      if (!recipients.every((r) => typeof r === 'string' && readers.includes(r))) return 'refuse';
    }
    return 'allow';
  };
}
