/**
 * The names of the tools that batch other tools; none of them may be called from inside itself.
 *
 * @category Tools for the model
 */
export const RUN_PIPELINE_TOOL_NAME = 'run_pipeline';
/**
 * The compose tool's name.
 *
 * @category Tools for the model
 */
export const COMPOSE_TOOL_NAME = 'compose';
/**
 * The script tool's name.
 *
 * @category Code mode / discovery
 */
export const SCRIPT_TOOL_NAME = 'run_js';
