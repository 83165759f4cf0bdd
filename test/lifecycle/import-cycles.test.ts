/**
 * Imports are one-way: no module of hub/lifecycle is on an import cycle (issue: turn-events.ts and
 * usage-events.ts imported each other; the shared piece is turn-activity.ts now). Reads the sources'
 * relative imports (type-only ones included: they couple the files just the same).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const HUB = resolve(import.meta.dirname, '../../hub');
const ROOT = resolve(HUB, '..');

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Each hub source file's relative imports that resolve to another hub source file. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourcesUnder(HUB)) {
    const targets = [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s+'(\.{1,2}\/[^']+)\.js'/g)]
      .map((match) => resolve(dirname(file), `${match[1]}.ts`))
      .filter((target) => target.startsWith(HUB));
    graph.set(file, targets);
  }
  return graph;
}

/** Every cycle through `start`, as the files on it (relative to the repo), found by depth-first search. */
function cyclesThrough(graph: Map<string, string[]>, start: string): string[][] {
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const walk = (file: string, path: string[]) => {
    for (const next of graph.get(file) ?? []) {
      if (next === start) cycles.push([...path, next].map((f) => relative(ROOT, f)));
      else if (!seen.has(next)) {
        seen.add(next);
        walk(next, [...path, next]);
      }
    }
  };
  walk(start, [start]);
  return cycles;
}

describe('hub/lifecycle imports', () => {
  it('no lifecycle module is on an import cycle', () => {
    const graph = importGraph();
    const lifecycle = [...graph.keys()].filter((file) => file.startsWith(join(HUB, 'lifecycle')));
    expect(lifecycle.length).toBeGreaterThan(5);
    expect(lifecycle.flatMap((file) => cyclesThrough(graph, file))).toEqual([]);
  });

  it('the check finds a cycle when there is one', () => {
    const a = join(HUB, 'lifecycle', 'a.ts');
    const b = join(HUB, 'lifecycle', 'b.ts');
    expect(cyclesThrough(new Map([[a, [b]], [b, [a]]]), a)).toEqual([['hub/lifecycle/a.ts', 'hub/lifecycle/b.ts', 'hub/lifecycle/a.ts']]);
  });
});
