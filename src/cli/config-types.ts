/**
 * The shapes of the proxy's config file and of a composite file, once read and checked: what
 * `config.ts` reads and every part of the proxy takes.
 */
import type { SandboxPoolOptions, ScriptToolOptions } from '../index.js';
import type { MatchMode } from './example-match.js';

/** One upstream MCP server. */
export interface ServerConfig {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  prefix?: boolean;
  trustAnnotations?: boolean;
  tools?: Record<string, { hasSideEffects: boolean }>;
  initTimeoutMs?: number;
  callTimeoutMs?: number;
}

/** `approvals` with its settings. */
export interface ApprovalsConfig {
  /** none: no one is asked; elicit: the person at the client, by elicitation; queue: the run pauses until the person answers through `toolweave approvals`. */
  mode: 'none' | 'elicit' | 'queue';
  /** queue: the approvals endpoint's port on 127.0.0.1 (default 0: a free one). */
  port?: number;
  /** queue: the most paused runs the queue holds (default 100). */
  maxPending?: number;
  /** queue: the most paused runs of one client session the queue holds (default 20, at most `maxPending`). */
  maxPendingPerSession?: number;
  /** queue: who must approve, as the model is told. */
  approver?: string;
}

/** The proxy's configuration, from a file or from the command line. */
export interface ProxyConfig {
  servers: Record<string, ServerConfig>;
  sideEffectingTools?: string[];
  composites?: string[];
  /** run_js's options, and the pool the sessions share. */
  script?: Omit<ScriptToolOptions, 'sideEffectingTools' | 'pool' | 'scope'> & { pool?: SandboxPoolOptions };
  /** How side-effecting calls are approved: the mode, or the mode with its settings (see {@link ApprovalsConfig}). */
  approvals?: ApprovalsConfig['mode'] | ApprovalsConfig;
  /** Scripts served as tools of their own, by name (see `snippets.ts`). */
  scripts?: Record<string, SnippetConfig>;
  /** Offer only run_js and get_observation; a script finds and calls every other tool. */
  codeOnly?: boolean;
  /** List run_pipeline and compose in their strict forms (open objects as JSON text), for strict clients. */
  strictSchemas?: boolean;
  /** Record every upstream call, one JSON-lines file per session, into this folder (relative to `base`). */
  record?: string;
  /** Untrusted data: which tools give trusted output, what each side-effecting tool needs trusted (see {@link FlowsConfig}). */
  flows?: FlowsConfig;
  /** The folder relative paths are read from (the config file's). */
  base: string;
  /** Where the config came from, for messages. */
  source: string;
  /** The name of the server given on the command line after `--`, if any. */
  commandLineServer?: string;
}

/** What one side-effecting tool needs trusted, as a config says it. */
export interface FlowPolicyConfig {
  /** The arguments that must be trusted, or `'*'` (the default) for all. */
  trusted?: string[] | '*';
  /** Whether what decided that the call is made must be trusted too (default true). */
  control?: boolean;
  /** Refuse sending data to a value of this argument that may not read it (the data's `readers`). */
  readersInclude?: string;
}

/** The config's `flows`: untrusted data may not steer a side effect. */
export interface FlowsConfig {
  /** Servers whose tools give trusted output (a tool with `openWorldHint: true` stays untrusted). Default: none. */
  trustedServers?: string[];
  /** Tools (as served) whose output is trusted, whatever their server. */
  trustedTools?: string[];
  /** Tools whose output is trusted whatever their arguments (a lookup in the user's own address book). */
  declassifiers?: string[];
  /** Parts of trusted tools' outputs that are not, by tool (`{ list_mail: ['*.subject'] }`). */
  untrustedFields?: Record<string, string[]>;
  /** Who may read each tool's output, by tool. */
  readers?: Record<string, string[]>;
  /** What each side-effecting tool needs trusted, by tool; a tool without one needs every argument trusted. */
  policies?: Record<string, FlowPolicyConfig>;
  /** What a call untrusted data steers does: ask the person (through `approvals`; refused when no one can be asked), or refuse it. Default ask. */
  onViolation?: 'ask' | 'refuse';
  /** Ask about every side-effecting call, with where its arguments came from, not only those untrusted data steers. */
  askEveryEffect?: boolean;
}

/** A composite file, read and checked. */
export interface CompositeFile {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  spec: Record<string, unknown>;
  examples?: CompositeExample[];
  /** The steps whose tools change things or do not say, by name (`toolweave forge` writes it). */
  sideEffectingSteps?: string[];
  /** What each side-effecting tool it calls needs trusted to run as recorded (`toolweave forge` writes it). */
  flowPolicies?: Record<string, { trusted: string[] }>;
  /** The file it was read from. */
  file: string;
}

/** A script the config serves as a tool: its input checked against `inputSchema`, run in run_js's sandbox. */
export interface SnippetConfig {
  description: string;
  inputSchema: Record<string, unknown>;
  /** The body of an async function; `input` holds the checked input. */
  script: string;
  /** The side-effecting tools it calls (each must be in the config's `sideEffectingTools` too); absent: it is pure. */
  sideEffectingTools?: string[];
  examples?: CompositeExample[];
}

/** An example `toolweave check` runs: without `output`, it passes when the composite runs. */
export interface CompositeExample {
  name?: string;
  input: Record<string, unknown>;
  stepOutputs?: Record<string, unknown>;
  output?: unknown;
  /** How `output` is compared (see `example-match.ts`); default `exact`. */
  match?: MatchMode;
}
