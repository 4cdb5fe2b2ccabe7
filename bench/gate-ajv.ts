/**
 * ajv as the gate compiles a tool's inputSchema (src/gate/stages/arguments.ts): draft 7, the
 * formats, and the same options. Hand-written baselines that check arguments compile with it, so
 * they pay what the engine's compiled validators pay and nothing else.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default export sits one level down.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;

/** The options the gate compiles a tool's inputSchema with. */
const AJV_OPTIONS = { allErrors: true, strict: false, validateSchema: false, addUsedSchema: false, logger: false, ownProperties: true } as const;
const ajv = addFormats(new Ajv(AJV_OPTIONS));

/** `schema` compiled as the gate compiles it: once, before any run. */
export function compileLikeTheGate(schema: object): ValidateFunction {
  return ajv.compile(schema);
}
