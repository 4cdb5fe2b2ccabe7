/**
 * A list of tools that may change while it is served (a server restarted with other tools, a
 * composite added): whoever serves it is told, and tells its clients.
 */
import type { ITool } from '../index.js';

/**
 * Tools as they stand now, and a way to hear when they change.
 *
 * @category MCP: serving tools
 */
export interface ToolList {
  /** The tools now. */
  current(): readonly ITool[];
  /** Call `listener` after every change; returns the function that stops it. */
  subscribe(listener: () => void): () => void;
}

/**
 * A {@link ToolList} the host changes with `set`.
 *
 * @category MCP: serving tools
 */
export interface MutableToolList extends ToolList {
  /** Replace the tools; every subscriber is told. */
  set(tools: readonly ITool[]): void;
}

/**
 * A tool list to change as the host's tools change.
 *
 * @example
 * ```ts
 * const tools = createToolList(await mcpTools(client));
 * const server = createMcpServer(tools);
 * tools.set([...tools.current(), composite]); // clients get notifications/tools/list_changed
 * ```
 *
 * @category MCP: serving tools
 */
export function createToolList(initial: readonly ITool[] = []): MutableToolList {
  let tools: readonly ITool[] = [...initial];
  const listeners = new Set<() => void>();
  return {
    current: () => tools,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(next) {
      tools = [...next];
      for (const listener of [...listeners]) {
        try {
          listener();
        } catch {
          // A listener is told; it cannot stop the others being told.
        }
      }
    },
  };
}

/** A fixed array as a list that never changes, or the list itself. */
export function asToolList(tools: readonly ITool[] | ToolList): ToolList {
  if (isToolList(tools)) return tools;
  const fixed = [...tools];
  return { current: () => fixed, subscribe: () => () => undefined };
}

function isToolList(value: readonly ITool[] | ToolList): value is ToolList {
  return !Array.isArray(value) && typeof (value as ToolList).current === 'function';
}
