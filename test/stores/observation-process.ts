/**
 * One replica of a host, run as its own process by the two-process test:
 *
 *   wrap <port> <session> <lines>: a wrapped tool returns <lines> numbered lines to the model;
 *     prints the result.
 *   page <port> <session> <id> <offset>: get_observation reads the id from the offset; prints the result.
 *
 * Each replica has its own client and store over the same Redis, as replicas behind a load
 * balancer would.
 */
import { Redis } from 'ioredis';
import { createGetObservationTool, withObservations } from '../../src/index.js';
import { createRedisObservationStore } from '../../src/stores/redis.js';
import { mockTool, numberedLines } from '../agent-tools/observations/helpers.js';

const [role, port, session, ...rest] = process.argv.slice(2);
const client = new Redis({ host: '127.0.0.1', port: Number(port), enableOfflineQueue: false });
client.on('error', () => {});
const store = createRedisObservationStore({ client });
const context = { sessionData: { sessionId: session } };

const produce = mockTool(() => ({ success: true, output: numberedLines(Number(rest[0])) }));

const result =
  role === 'wrap'
    ? await withObservations(produce, store).execute({}, context)
    : await createGetObservationTool(store).execute({ ids: [rest[0]], offset: Number(rest[1]) }, context);
process.stdout.write(JSON.stringify({ pid: process.pid, result }));
client.disconnect();
