/** Edge lists equal element for element (sources, targets, weights): the split paths' checks against unsplit runs. */
import { expect } from 'vitest';
import type { EdgeList } from '../../src/emst/edges.cpu.js';

export function expectSameEdges(a: EdgeList, b: EdgeList): void {
  expect(Array.from(a.sources)).toEqual(Array.from(b.sources));
  expect(Array.from(a.targets)).toEqual(Array.from(b.targets));
  expect(Array.from(a.weights)).toEqual(Array.from(b.weights));
}
