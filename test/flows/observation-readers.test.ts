/**
 * An observation read back without the label it was stored with (a store that lost it, a body
 * stored outside a gate with flows) is untrusted, and readable by no one: who could read it is
 * lost with the label, so a policy that asks only about readers must not send it anywhere.
 */
import { describe, expect, it } from 'vitest';
import { createGetObservationTool } from '../../src/agent-tools/observations/get-observation-tool.js';
import { createObservationStore } from '../../src/agent-tools/observations/memory-store.js';
import type { ObservationStore } from '../../src/agent-tools/observations/observation-store.js';
import { withObservations } from '../../src/agent-tools/observations/with-observations.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { readersInclude } from '../../src/flows/options.js';
import type { ToolExecutionContext } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';

const byUser = (context: ToolExecutionContext) => `user:${String(context.userId)}`;
/** A statement long enough to be stored, which only its owner may read. */
const STATEMENT = Array.from({ length: 120 }, (_, i) => `entry ${i + 1}: PIN 1234`).join('\n');

describe('an observation read back without its label', () => {
  it('reaches no one a readers policy would have kept it from', async () => {
    const memory = createObservationStore();
    const sent: unknown[] = [];
    for (const label of [undefined, 'malformed']) {
      const store: ObservationStore = {
        put: (body, scope, meta) => memory.put(body, scope, { ...meta, label }),
        read: (id, scope, request) => memory.read(id, scope, request),
      };
      const readStatement = tool('read_statement', () => STATEMENT, { hasSideEffects: false, trustedOutput: true, readers: ['me@home.example'] });
      const notify = tool('notify', (args) => (sent.push(args), 'sent'), { hasSideEffects: true });
      const gate = registry(...withObservations([readStatement], store, { scope: byUser }), createGetObservationTool(store, { scope: byUser }), notify).gate({
        flows: { onViolation: 'refuse', policies: { notify: { trusted: [], control: false, check: readersInclude('to') } } },
      });
      const pipeline = createRunPipelineTool(gate, { sideEffectingTools: ['notify'] });
      const read = await pipeline.execute({ steps: [{ tool: 'read_statement', args: {} }] }, { sessionId: 'first', userId: 'u' });
      const id = /obs_[a-z2-7]+/u.exec(String(read.output))![0];
      const result = await pipeline.execute(
        { steps: [{ id: 'page', tool: 'get_observation', args: { ids: [id], lines: 1 } }, { tool: 'notify', args: { to: 'someone@else.example', text: '${page.output}' } }] },
        { sessionId: `second-${String(label)}`, userId: 'u', flows: { arguments: 'trusted' } },
      );
      expect(JSON.stringify(result), String(label)).toContain('flow_untrusted');
    }
    expect(sent).toEqual([]);
  });
});
