/**
 * The workloads of bench/chain.ts and bench/combinator-cases.ts with tools a host really has: each
 * takes a payment (a recipient matching a pattern, a bounded integer amount, a currency from a
 * list, a memo of at most 140 characters, a nested `customer` object, at most 8 `tags`, and no
 * other field), and the engine runs with the builder's default options, so every call's arguments
 * are checked against that schema.
 *
 * The baseline is the hand-written code with the same checks: the same schemas compiled once, by
 * ajv with the options the gate compiles tools' schemas with (src/gate/stages/arguments.ts), each
 * call's arguments validated before the call and the composite's own input once per run. The bare
 * hand-written code, without checks, is measured too, for reference.
 */
import type { ValidateFunction } from 'ajv';
import { ComposableToolBuilder, createStepGate, type ITool, type JSONSchemaObject, type StepGate } from '../dist/index.js';
import { CONCURRENCY } from './combinator-cases.js';
import { compileLikeTheGate } from './gate-ajv.js';

/** A payment, as a payments API takes it. Each tool gets a copy of its own, as each tool of a real registry has its own schema. */
export const paymentSchema = {
  type: 'object',
  properties: {
    recipient: { type: 'string', pattern: '^acct_[A-Za-z0-9]{8,24}$', description: 'The account paid.' },
    amount: { type: 'integer', minimum: 1, maximum: 1_000_000, description: 'In minor units (cents).' },
    currency: { type: 'string', enum: ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CAD'] },
    memo: { type: 'string', maxLength: 140 },
    customer: {
      type: 'object',
      properties: {
        id: { type: 'string', pattern: '^cus_[A-Za-z0-9]{6,}$' },
        email: { type: 'string', format: 'email' },
        country: { type: 'string', minLength: 2, maxLength: 2 },
      },
      required: ['id', 'email'],
      additionalProperties: false,
    },
    tags: { type: 'array', items: { type: 'string', maxLength: 32 }, maxItems: 8 },
  },
  required: ['recipient', 'amount', 'currency', 'customer'],
  additionalProperties: false,
} as const satisfies JSONSchemaObject;

/** The fields of a payment, in the order a mapping writes them. */
interface Payment {
  recipient: string;
  amount: number;
  currency: 'USD' | 'EUR' | 'GBP';
  memo: string;
  customer: { id: string; email: string; country: string };
  tags: string[];
}

/** The `i`th payment of a batch: every one valid. */
export function payment(i: number): Payment {
  return {
    recipient: `acct_${(1e9 + i).toString(36)}Xq`,
    amount: 100 + (i % 5000),
    currency: (['USD', 'EUR', 'GBP'] as const)[i % 3],
    memo: `Invoice 2026-${String(i % 10000).padStart(4, '0')}: consulting, March`,
    customer: { id: `cus_${(2e9 + i).toString(36)}`, email: `buyer${i}@example.com`, country: 'DE' },
    tags: ['invoice', 'consulting', 'q1'],
  };
}

/** A payments tool named `name` with a schema of its own; `execute` makes its output from the payment. */
function paymentTool(name: string, execute: (args: Payment) => unknown): ITool {
  return {
    id: name,
    name,
    displayName: name,
    description: 'Sends a payment.',
    inputSchema: structuredClone(paymentSchema) as JSONSchemaObject,
    hasSideEffects: false,
    execute: async (args) => ({ success: true, output: execute(args as unknown as Payment) }),
  };
}

/** A tool's schema compiled as the hand-written code compiles it: once, before any run. */
function compiled(tool: ITool): ValidateFunction {
  return compileLikeTheGate(tool.inputSchema);
}

/** The arguments the hand-written code maps from a payment: the same six fields the engine's mapping writes. */
function mapped(p: Payment): Payment {
  return { recipient: p.recipient, amount: p.amount, currency: p.currency, memo: p.memo, customer: p.customer, tags: p.tags };
}

/** The mapping a step writes from `root` (`$prev`, `$input` or `$item`): the six fields, one reference each. */
function mapping(root: string): Record<string, string> {
  return Object.fromEntries(['recipient', 'amount', 'currency', 'memo', 'customer', 'tags'].map((key) => [key, `${root}.${key}`]));
}

/** A run's result, or a throw. */
function outputOf(result: { success: boolean; output?: unknown; error?: string }): unknown {
  if (!result.success) throw new Error(result.error);
  return result.output;
}

/** A gate over `tools` with the default options; `calls` is the run's call budget when a workload needs more than the default 5,000. */
function gateOver(tools: readonly ITool[], calls?: number): StepGate {
  const registry = new Map(tools.map((t) => [t.name, t]));
  return createStepGate({ resolve: (name) => registry.get(name), ...(calls ? { budget: { calls } } : {}) });
}

/** What one workload runs: hand-written with the same checks, hand-written without, and the engine with default options. */
export interface RealisticCase {
  /** Hand-written, each call's arguments (and the input) validated by the same compiled schemas. */
  checked: () => Promise<unknown>;
  /** Hand-written without any check: the bare floor, for reference. */
  bare: () => Promise<unknown>;
  /** The composite, built with the builder's default options. */
  engine: () => Promise<unknown>;
}

/** The host's context, as bench/chain.ts passes it. */
const context = () => ({ sessionId: 's-1', requestId: 'r-42', tenant: 'acme', user: { id: 7, name: 'Ann', roles: ['dev'] }, locale: 'en' });

/** The longest realistic chain. */
const LONGEST = 200;
/** `pay0` to `pay199`: each passes the payment on with one more cent. */
const chainTools = Array.from({ length: LONGEST }, (_, i) => paymentTool(`pay${i}`, (p) => ({ ...p, amount: p.amount + 1 })));
const chainGate = gateOver(chainTools);

/** A chain of `steps` payments tools, each given the six fields of the payment the step before returned. */
export function realisticChain(steps: number): RealisticCase {
  const tools = chainTools.slice(0, steps);
  const input = payment(7);
  const composite = new ComposableToolBuilder(chainGate).build(`pay_chain${steps}`, `${steps} payments`, paymentSchema, {
    steps: tools.map((t, i) => ({ tool: t.name, inputMapping: mapping(i === 0 ? '$input' : '$prev') })),
  });
  const checkInput = compileLikeTheGate(paymentSchema);
  const checks = tools.map(compiled);
  return {
    async checked() {
      if (!checkInput(input)) throw new Error('input invalid');
      let value = input;
      const ctx = context();
      for (let i = 0; i < steps; i++) {
        const args = mapped(value);
        if (!checks[i](args)) throw new Error(`args invalid at step ${i}`);
        value = outputOf(await tools[i].execute(args as unknown as Record<string, unknown>, ctx)) as Payment;
      }
      return value;
    },
    async bare() {
      let value = input;
      const ctx = context();
      for (let i = 0; i < steps; i++) value = outputOf(await tools[i].execute(mapped(value) as unknown as Record<string, unknown>, ctx)) as Payment;
      return value;
    },
    engine: async () => outputOf(await composite.execute(input, context())),
  };
}

/** The composite input of the for_each: the list of payments, checked for its size. */
const batchSchema = {
  type: 'object',
  properties: { items: { type: 'array', maxItems: 20_000 } },
  required: ['items'],
  additionalProperties: false,
} as const satisfies JSONSchemaObject;
/** `charge`: takes a payment, answers a receipt. */
const charge = paymentTool('charge', (p) => ({ status: 'paid', amount: p.amount, currency: p.currency }));
/** The for_each's gate: its budget covers 10,000 items. */
const chargeGate = gateOver([charge], 20_000);

/** A for_each charging `count` payments at concurrency 16, each call given the item's six fields. */
export function realisticForEach(count: number): RealisticCase {
  const items = Array.from({ length: count }, (_, i) => payment(i));
  const input = { items };
  const composite = new ComposableToolBuilder(chargeGate).build('charge_all', 'charges every payment', batchSchema, {
    steps: [{ combinator: 'for_each' as const, items: '$input.items', concurrency: CONCURRENCY, maxItems: count, template: { tool: 'charge', inputMapping: mapping('$item') } }],
  });
  const checkInput = compileLikeTheGate(batchSchema);
  const check = compiled(charge);
  const workers = (checked: boolean) => async () => {
    if (checked && !checkInput(input)) throw new Error('input invalid');
    const out = new Array<unknown>(items.length);
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const i = next++;
        const args = mapped(items[i]);
        if (checked && !check(args)) throw new Error(`args invalid at item ${i}`);
        out[i] = outputOf(await charge.execute(args as unknown as Record<string, unknown>, {}));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return out;
  };
  return { checked: workers(true), bare: workers(false), engine: async () => outputOf(await composite.execute(input, {})) };
}

/** `p0` to `p99`: a hundred payments tools, each with its own schema. */
const gatherTools = Array.from({ length: 100 }, (_, i) => paymentTool(`p${i}`, (p) => ({ status: 'paid', amount: p.amount })));
const gatherGate = gateOver(gatherTools);
/** The composite input of the gather: nothing. */
const emptySchema = { type: 'object', properties: {}, additionalProperties: false } as const satisfies JSONSchemaObject;

/** A gather of 100 payments, one per tool, each call's payment written in the spec. */
export function realisticGather(): RealisticCase {
  const payments = gatherTools.map((_, i) => payment(i));
  const composite = new ComposableToolBuilder(gatherGate).build('pay_all', 'a hundred payments at once', emptySchema, {
    steps: [{ combinator: 'gather' as const, calls: Object.fromEntries(gatherTools.map((t, i) => [t.name, { tool: t.name, inputMapping: payments[i] }])) }],
  });
  const checkInput = compileLikeTheGate(emptySchema);
  const checks = gatherTools.map(compiled);
  // The spec writes each payment as literals: every run builds its arguments afresh, and so does the hand-written code.
  const argsOf = (i: number) => {
    const p = payments[i];
    return { ...mapped(p), customer: { ...p.customer }, tags: [...p.tags] };
  };
  const all = (checked: boolean) => async () => {
    const input = {};
    if (checked && !checkInput(input)) throw new Error('input invalid');
    const results = await Promise.all(
      gatherTools.map((t, i) => {
        const args = argsOf(i);
        if (checked && !checks[i](args)) throw new Error(`args invalid for ${t.name}`);
        return t.execute(args as unknown as Record<string, unknown>, {});
      }),
    );
    const out: Record<string, unknown> = {};
    results.forEach((r, i) => (out[gatherTools[i].name] = outputOf(r)));
    return out;
  };
  return { checked: all(true), bare: all(false), engine: async () => outputOf(await composite.execute({}, {})) };
}
