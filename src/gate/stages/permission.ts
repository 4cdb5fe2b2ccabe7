/**
 * Permission: the host's permission check, then each of its checks in order, before every call
 * through every door. A call goes on only when each answers `{ isAllowed: true }` exactly; one
 * that throws, or answers anything else, refuses it (`permission_denied`): the gate fails closed.
 */
import { failure } from '../../codes.js';
import type { ITool, ToolExecutionResult } from '../../tool.js';
import { Later, type GateCall } from '../call-record.js';
import type { PermissionDecision } from '../host-hooks.js';
import { messageOf } from '../message-of.js';
import type { GateSettings } from '../settings.js';

/** The stage: nothing to ask (no check), or the host's answers, later. */
export function askPermission(call: GateCall): Later | undefined {
  // The test a gate with no check pays; the asking is kept out of line.
  return call.settings!.asksPermission ? ask(call) : undefined;
}

function ask(call: GateCall): Later {
  return askedLater(call, (refusal) => refusal);
}

/**
 * Ask the permission check and the host's checks of `call` (a gate that has some), then settle the
 * returned verdict with `then` of their refusal (`undefined` when all allow). A dry run asks them
 * too, before it answers a call that would have an effect.
 */
export function askedLater(call: GateCall, then: (refusal: ToolExecutionResult | undefined) => ToolExecutionResult | undefined): Later {
  const later = new Later();
  permissionRefusal(call, call.settings!).then(
    (refusal) => later.settle(then(refusal)),
    // Only a host object's getter can get here (each check is caught): fail closed.
    (error: unknown) => later.settle(failure('permission_denied', `The host's checks failed: ${messageOf(error)}`, { tool: call.tool!.name, step: call.step })),
  );
  return later;
}

/** The first refusal of the permission check and the host's checks, asked in order; `undefined` when all allow. */
async function permissionRefusal(call: GateCall, settings: GateSettings): Promise<ToolExecutionResult | undefined> {
  const { args, context, step } = call;
  const tool = call.tool!;
  const manager = settings.permissionManager;
  if (manager !== undefined) {
    const refusal = await asked(() => manager.isExecutionAllowed(tool, args, context), tool, step, 'permission check');
    if (refusal) return refusal;
  }
  for (const check of settings.checks) {
    const refusal = await asked(() => check({ tool, args, context, step }), tool, step, 'check');
    if (refusal) return refusal;
  }
  return undefined;
}

/** Ask a permission check or a host check: a refusal unless it answers `{ isAllowed: true }` exactly. */
async function asked(
  ask: () => PermissionDecision | Promise<PermissionDecision>,
  tool: ITool,
  step: string,
  what: string,
): Promise<ToolExecutionResult | undefined> {
  let decision: unknown;
  try {
    decision = await ask();
  } catch (error) {
    return failure('permission_denied', `The host's ${what} failed: ${messageOf(error)}`, { tool: tool.name, step, reason: `${what} failed` });
  }
  try {
    const d = decision as PermissionDecision | undefined;
    if (typeof d === 'object' && d !== null && d.isAllowed === true) return undefined;
    if (typeof d !== 'object' || d === null || d.isAllowed !== false) {
      return failure('permission_denied', `The host's ${what} answered something malformed for tool "${tool.name}" (only { isAllowed: true } allows a call), so the call is refused.`, {
        tool: tool.name,
        step,
        reason: 'malformed decision',
      });
    }
    const reason = typeof d.reason === 'string' ? d.reason : undefined;
    // Only an object is carried (null is an object to typeof, and falls out below).
    const details = typeof d.details === 'object' ? d.details : undefined;
    return failure('permission_denied', reason ?? `Permission denied for tool "${tool.name}".`, {
      tool: tool.name,
      step,
      reason,
      ...(details ? { permission: details } : {}),
    });
  } catch (error) {
    return failure('permission_denied', `The host's ${what} answered something unreadable: ${messageOf(error)}`, { tool: tool.name, step, reason: 'malformed decision' });
  }
}
