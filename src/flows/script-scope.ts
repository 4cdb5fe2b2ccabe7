/**
 * The scopes a script's names are declared in, for reading it (`script-read.ts`): one per
 * function, block, loop head, `switch` and `catch`; and what a function body hoists.
 */
import type { AnyNode, Identifier, Pattern, Statement } from 'acorn';

/** The names declared in one scope, and the scope around it. */
export class Scope {
  readonly names = new Map<string, number>();
  constructor(readonly parent: Scope | undefined) {}

  /** The binding `name` means here, if a scope declares it. */
  find(name: string): number | undefined {
    for (let s: Scope | undefined = this; s !== undefined; s = s.parent) {
      const found = s.names.get(name);
      if (found !== undefined) return found;
    }
    return undefined;
  }
}

/** The patterns of the `var` declarations of a function body, in its blocks too (not in the functions it defines). */
export function varPatterns(body: readonly Statement[]): Pattern[] {
  const found: Pattern[] = [];
  const visit = (node: AnyNode | null | undefined): void => {
    if (node === null || node === undefined) return;
    switch (node.type) {
      case 'VariableDeclaration':
        if (node.kind === 'var') for (const d of node.declarations) found.push(d.id);
        return;
      case 'BlockStatement':
        return node.body.forEach(visit);
      case 'IfStatement':
        return (visit(node.consequent), visit(node.alternate));
      case 'ForStatement':
        return (visit(node.init as AnyNode | null), visit(node.body));
      case 'ForInStatement':
      case 'ForOfStatement':
        return (visit(node.left as AnyNode), visit(node.body));
      case 'WhileStatement':
      case 'DoWhileStatement':
      case 'LabeledStatement':
        return visit(node.body);
      case 'TryStatement':
        return (visit(node.block), visit(node.handler?.body), visit(node.finalizer));
      case 'SwitchStatement':
        return node.cases.forEach((c) => c.consequent.forEach(visit));
      default:
        return;
    }
  };
  body.forEach(visit);
  return found;
}

/** The names a pattern declares. */
export function patternNames(pattern: Pattern): Identifier[] {
  const names: Identifier[] = [];
  const collect = (p: Pattern): void => {
    if (p.type === 'Identifier') names.push(p);
    else if (p.type === 'ObjectPattern') p.properties.forEach((q) => collect(q.type === 'RestElement' ? q.argument : q.value));
    else if (p.type === 'ArrayPattern') p.elements.forEach((e) => e !== null && collect(e));
    else if (p.type === 'RestElement') collect(p.argument);
    else if (p.type === 'AssignmentPattern') collect(p.left);
  };
  collect(pattern);
  return names;
}
