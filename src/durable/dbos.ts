/**
 * `toolweave/dbos`: a door's run as a workflow of DBOS, a durable engine on Postgres. Each gated
 * call is a DBOS step, and a run that waits for a person is a durable wait for a message, so a
 * host whose process is killed mid-run starts again, DBOS recovers the workflow, and the run
 * carries on where it stopped: no call that ended runs again, and an answer sent to the wait
 * (from any process) resumes it.
 *
 * `@dbos-inc/dbos-sdk` is an optional peer dependency: the host installs it, configures and
 * launches DBOS; `toolweave` itself never imports this module.
 *
 * @module toolweave/dbos
 */
export { durableTool } from './dbos-step.js';
export { durableApprovals } from './dbos-hook.js';
export { registerDbosDoors, type DbosDoors, type DbosDoorsOptions, type DbosRunContext, type DbosStartOptions } from './dbos-doors.js';
export { answerApproval, pendingApproval, type DbosPendingApproval } from './dbos-approvals.js';
