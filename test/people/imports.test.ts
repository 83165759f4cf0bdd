/**
 * The person loop (hub/people/: attention, approvals) has one home and its imports go one way:
 * no cycle among its files (approvals ↔ attention used to import each other), and nothing below it
 * (the store, the write services) imports it. Runtime imports only: a type import loads nothing.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The relative modules a file loads at runtime (`import type` left out), as repo paths. */
function runtimeImports(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  return [...text.matchAll(/^(import|export)\s+(?!type\s)[^;]*?from\s+'(\.[^']+)'/gms)].map((m) => normalize(join(dirname(path), m[2]!)).replace(/\.js$/, '.ts'));
}

/** Each cycle found by a depth-first walk, as the list of files around it. */
function cycles(files: readonly string[]): string[][] {
  const graph = new Map(files.map((file) => [file, runtimeImports(file).filter((to) => files.includes(to))]));
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const walk = (file: string, trail: string[]) => {
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...trail.slice(trail.indexOf(next)), file]);
      else if (!state.has(next)) walk(next, [...trail, file]);
    }
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) walk(file, []);
  return found;
}

describe('hub/people imports go one way', () => {
  it('finds a cycle when there is one (the check can fail)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'imports-'));
    try {
      writeFileSync(join(dir, 'a.ts'), "import { b } from './b.js';\nexport const a = () => b;\n");
      writeFileSync(join(dir, 'b.ts'), "import { a } from './a.js';\nimport type { c } from './c.js';\nexport const b = () => a;\n");
      writeFileSync(join(dir, 'c.ts'), "import type { a } from './a.js';\nexport type c = a;\n");
      expect(cycles(sources(dir)).map((cycle) => cycle.map((file) => file.slice(dir.length + 1)).sort())).toEqual([['a.ts', 'b.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('no cycle among hub/people files', () => {
    expect(cycles(sources(join('hub', 'people')))).toEqual([]);
  });

  it('the store and the write services never import hub/people', () => {
    const below = [...sources(join('hub', 'store')), ...sources(join('hub', 'services'))];
    const upward = below.flatMap((file) => runtimeImports(file).filter((to) => to.startsWith(join('hub', 'people'))).map((to) => `${file} → ${to}`));
    expect(upward).toEqual([]);
  });
});

/** Every relative module a file names, type imports included (a type climbing a layer is still a climb). */
function allImports(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  return [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms)].map((m) => normalize(join(dirname(path), m[1]!)).replace(/\.js$/, '.ts'));
}

describe('hub layers import downward only', () => {
  /** What each lower layer must not import: the layers above it. */
  const ABOVE: Record<string, string[]> = {
    store: ['services', 'people', 'lifecycle', 'socket', 'http', 'cluster', 'machines'],
    services: ['people', 'lifecycle', 'socket', 'http', 'cluster', 'machines'],
    cluster: ['socket', 'http'],
  };

  it('finds a climb when there is one (the check can fail)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'layers-'));
    try {
      writeFileSync(join(dir, 'low.ts'), "import type { High } from '../lifecycle/high.js';\nexport type Low = High;\n");
      expect(allImports(join(dir, 'low.ts'))).toEqual([normalize(join(dir, '../lifecycle/high.ts'))]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const [layer, above] of Object.entries(ABOVE)) {
    it(`hub/${layer} imports nothing from ${above.join(', ')}`, () => {
      const climbs = sources(join('hub', layer)).flatMap((file) => allImports(file).filter((to) => above.some((up) => to.startsWith(join('hub', up) + '/'))).map((to) => `${file} → ${to}`));
      expect(climbs).toEqual([]);
    });
  }
});
