import type { Node } from './ast.js';

type AnyNode = Node & Record<string, unknown>;

const isNode = (v: unknown): v is AnyNode => typeof v === 'object' && v !== null && 'node' in v;

/**
 * Walks every node below `root` (children before parents) and replaces a node with what `visit`
 * returns, when it returns one. Works on any node kind without a per-kind list.
 */
export function replaceNodes(root: Node, visit: (node: Node) => Node | undefined): Node {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = walk(value[i]);
      return value;
    }
    if (isNode(value)) {
      for (const key of Object.keys(value)) {
        if (key === 'type' || key === 'start' || key === 'end') continue;
        const child = value[key];
        if (typeof child === 'object' && child !== null) value[key] = walk(child);
      }
      return visit(value) ?? value;
    }
    if (typeof value === 'object' && value !== null) {
      // window_exprs is a record of nodes.
      for (const [k, v] of Object.entries(value)) (value as Record<string, unknown>)[k] = walk(v);
    }
    return value;
  };
  return walk(root) as Node;
}
