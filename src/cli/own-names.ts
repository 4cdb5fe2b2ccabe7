/**
 * The names of the proxy's own tools, apart from the proxy so the config's checks can read them
 * without loading the MCP SDK.
 */
import { COMPOSE_TOOL_NAME, RUN_PIPELINE_TOOL_NAME, SCRIPT_TOOL_NAME } from '../agent-tools/batching-names.js';

/** The name of the observation pager the proxy serves. */
export const GET_OBSERVATION_TOOL_NAME = 'get_observation';
/** Names the proxy's own tools hold: an upstream tool of the same name is a collision. */
export const OWN_TOOL_NAMES: readonly string[] = [RUN_PIPELINE_TOOL_NAME, COMPOSE_TOOL_NAME, SCRIPT_TOOL_NAME, GET_OBSERVATION_TOOL_NAME];
