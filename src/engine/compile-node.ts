/**
 * Compile any node into a plan: the leaf or the combinator, then the fields every node may
 * carry (when, retry, onError, name). Parsing happens here, once; a run only walks closures.
 */
import { childrenOf, collectNames } from '../spec/nodes.js';
import type { NodeCommon, SpecNode } from '../spec/types.js';
import { compileAt, type CompileEnv, type NodeSite } from './compile-env.js';
import { annotate } from './combinators/annotate.js';
import { FOR_EACH_DEFAULT_CONCURRENCY, FOR_EACH_DEFAULT_MAX_ITEMS, forEach, type ItemsSource } from './combinators/for-each.js';
import { gather } from './combinators/gather.js';
import { pipe } from './combinators/pipe.js';
import { scope } from './combinators/scope.js';
import { tryAndCheck } from './combinators/try-and-check.js';
import { compileLeaf } from './leaf.js';
import { withCommonFields } from './common-fields.js';
import type { NodePlan } from './run-state.js';
import { forEachPlanned, plannedOf, sumPlanned, type Planned } from './planned-calls.js';

/** Compile `node` (already structurally valid) at `site`. */
export function compileNode(node: SpecNode, env: CompileEnv, site: NodeSite): NodePlan {
  const label = node.name ?? site.path;
  const child = (at: string, childNode: unknown, changes: Partial<NodeSite> = {}): NodePlan =>
    compileNode(childNode as SpecNode, env, { ...site, ...changes, path: `${site.path}.${at}` });
  let plan: NodePlan;
  let planned: Planned;
  switch (node.combinator) {
    case undefined:
      plan = compileLeaf(node, env, site, label);
      planned = 1;
      break;
    case 'gather': {
      const calls = childrenOf(node).map((c) => [c.at.slice('calls.'.length), child(c.at, c.node)] as const);
      plan = gather(calls);
      planned = sumPlanned(calls.map(([, call]) => plannedOf(call)));
      break;
    }
    case 'for_each': {
      let items: ItemsSource;
      if (typeof node.items === 'string') {
        const mapping = compileAt(env, node.items, site, label);
        items = { from: 'reference', read: mapping.accessor, labels: mapping.labels };
      } else {
        items = { from: 'node', plan: child('items', node.items) };
      }
      const template = child('template', node.template, { inForEach: true });
      // Items a tool will return are not counted until it has: then only the items call counts.
      planned = items.from === 'reference' ? forEachPlanned(items.read, plannedOf(template)) : plannedOf(items.plan);
      plan = forEach(label, items, template, node.concurrency ?? FOR_EACH_DEFAULT_CONCURRENCY, node.maxItems ?? FOR_EACH_DEFAULT_MAX_ITEMS);
      break;
    }
    case 'pipe': {
      // A stage may read the named nodes of the stages before it: they have completed.
      const stages = node.stages.map((stage, i) => child(`stages[${i}]`, stage, i > 0 ? { hasPrev: true, inPipeStage: true, namesBefore: namesAfter(site.namesBefore, node.stages.slice(0, i)) } : {}));
      plan = pipe(stages);
      planned = sumPlanned(stages.map(plannedOf));
      break;
    }
    case 'try_and_check': {
      const doPlan = child('do', node.do);
      const checkPlan = child('check', node.check, { hasPrev: true, inPipeStage: true, namesBefore: namesAfter(site.namesBefore, [node.do]) });
      plan = tryAndCheck(label, doPlan, checkPlan, node.attempts ?? 1);
      planned = sumPlanned([plannedOf(doPlan), plannedOf(checkPlan)]);
      break;
    }
    case 'scope': {
      const inner = child('do', node.do);
      plan = scope(label, inner, (node.on_failure ?? 'rollback') === 'rollback');
      planned = plannedOf(inner);
      break;
    }
    case 'annotate': {
      env.annotations.push({ step: label, intent: node.intent, ...(node.hypothesis !== undefined ? { hypothesis: node.hypothesis } : {}) });
      const inner = child('do', node.do);
      plan = annotate(inner, node.intent, node.hypothesis);
      planned = plannedOf(inner);
      break;
    }
  }
  const wrapped = withCommonFields(plan, node as NodeCommon, env, site, label);
  // A node its `when` may skip is not counted: the floor stays a floor.
  wrapped.planned = node.when !== undefined ? 0 : planned;
  return wrapped;
}

/** The names complete once `done` has run, on top of those complete before. */
function namesAfter(before: ReadonlySet<string>, done: readonly unknown[]): ReadonlySet<string> {
  return new Set([...before, ...collectNames(done)]);
}
