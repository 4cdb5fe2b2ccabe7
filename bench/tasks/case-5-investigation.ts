/**
 * Case 5: the 4-step investigation, list_dir -> grep_files -> read_file -> calculator: how many
 * connections do the request handlers in src/api open, each with a pool of config/pool_size.
 */
import { callPipeline, scriptAnswer, type TaskCase } from './case.js';

export const INVESTIGATION_TASK =
  'Every request handler in src/api (an `export async function handle...`) opens its own database pool, sized by the number in config/pool_size. ' +
  'How many database connections do the handlers open in total?';

export const HANDLER_PATTERN = '^export async function handle';

/** The answer from the handler count and the calculator's product. */
export function connectionsAnswer(handlers: number, poolSize: number, total: number): string {
  return `${total} connections: ${handlers} handlers x pool size ${poolSize}`;
}

const SCRIPT = `const list = await callTool('list_dir', { path: 'src/api' });
const count = await callTool('grep_files', { pattern: '${HANDLER_PATTERN}', path: 'src/api', count: true });
const pool = await callTool('read_file', { path: 'config/pool_size' });
const total = await callTool('calculator', { expression: count.text + ' * ' + pool.text.trim() });
if (list.error || count.error || pool.error || total.error) return 'failed: ' + JSON.stringify([list.error, count.error, pool.error, total.error]);
return total.text + ' connections: ' + count.text + ' handlers x pool size ' + pool.text.trim();`;

export const investigation: TaskCase = {
  id: 5,
  name: '4-step investigation',
  large: true,
  task: INVESTIGATION_TASK,
  ways: {
    async direct(c) {
      await c.call('list_dir', { path: 'src/api' });
      const handlers = Number(await c.call('grep_files', { pattern: HANDLER_PATTERN, path: 'src/api', count: true }));
      const pool = Number((await c.call('read_file', { path: 'config/pool_size' })).trim());
      const total = Number(await c.call('calculator', { expression: `${handlers} * ${pool}` }));
      return connectionsAnswer(handlers, pool, total);
    },
    async pipeline(c) {
      // Predictable in advance: the calculator takes the count and the pool size by reference.
      const out = await callPipeline(c, {
        steps: [
          { id: 'list', tool: 'list_dir', args: { path: 'src/api' } },
          { id: 'count', tool: 'grep_files', args: { pattern: HANDLER_PATTERN, path: 'src/api', count: true } },
          { id: 'pool', tool: 'read_file', args: { path: 'config/pool_size' } },
          { id: 'total', tool: 'calculator', args: { expression: '${count.output} * ${pool.output}' } },
        ],
      });
      return connectionsAnswer(Number(out.count), Number(String(out.pool).trim()), Number(out.total));
    },
    async script(c) {
      await c.call('run_js', { intention: 'count handlers and multiply by the pool size', code: SCRIPT });
      return scriptAnswer(c);
    },
  },
};
