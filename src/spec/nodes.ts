/** Telling node kinds apart and walking into their children: one place, used by validate, the engine and the grade. */
import type { CombinatorName, SpecNode } from './types.js';
import { COMBINATORS } from './schema.js';

/** A node's kind: `step` for a leaf, the combinator's name otherwise, `unknown` for anything else. */
export function kindOf(node: unknown): CombinatorName | 'step' | 'unknown' {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return 'unknown';
  const combinator = (node as { combinator?: unknown }).combinator;
  if (combinator === undefined) return 'step';
  return (COMBINATORS as readonly unknown[]).includes(combinator) ? (combinator as CombinatorName) : 'unknown';
}

/** A nested node and where it sits, relative to its parent (`calls.source`, `stages[1]`). */
export interface ChildNode {
  /** The child. */
  node: unknown;
  /** Its place under the parent, for labels and error messages. */
  at: string;
  /** The role it plays, which decides what references it may use. */
  role: 'call' | 'items' | 'template' | 'stage' | 'do' | 'check';
  /** Its position among the parent's stages (pipe only). */
  position?: number;
}

/** The nested nodes of `node`, in the order they run (for gather: key order). */
export function childrenOf(node: SpecNode): ChildNode[] {
  switch (node.combinator) {
    case undefined:
      return [];
    case 'gather':
      return isRecord(node.calls)
        ? Object.keys(node.calls).map((key) => ({ node: node.calls[key], at: `calls.${key}`, role: 'call' as const }))
        : [];
    case 'for_each': {
      const out: ChildNode[] = [];
      if (typeof node.items === 'object' && node.items !== null) out.push({ node: node.items, at: 'items', role: 'items' });
      out.push({ node: node.template, at: 'template', role: 'template' });
      return out;
    }
    case 'pipe':
      return Array.isArray(node.stages)
        ? node.stages.map((stage, i) => ({ node: stage, at: `stages[${i}]`, role: 'stage' as const, position: i }))
        : [];
    case 'try_and_check':
      return [
        { node: node.do, at: 'do', role: 'do' },
        { node: node.check, at: 'check', role: 'check' },
      ];
    case 'scope':
    case 'annotate':
      return [{ node: node.do, at: 'do', role: 'do' }];
    default:
      // An unknown combinator (validation reports it) has no children to walk.
      return [];
  }
}

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every name in a list of node trees. */
export function collectNames(nodes: readonly unknown[]): Set<string> {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (!isRecord(node)) return;
    if (typeof node.name === 'string') names.add(node.name);
    for (const child of childrenOf(node as unknown as SpecNode)) visit(child.node);
  };
  nodes.forEach(visit);
  return names;
}
