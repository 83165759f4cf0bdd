/**
 * Spec section 8: "No code anywhere branches on a flavor's name." Outside the registry
 * (shared/flavors.ts) no hub or shared source holds a flavor id as a string literal, comments aside.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FLAVOR_IDS = ['claude', 'codex', 'cursor', 'gemini', 'opencode', 'kimi', 'copilot', 'pi', 'grok', 'antigravity', 'hermes'];
const literal = new RegExp(`(['"\`])(${FLAVOR_IDS.join('|')})\\1`);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|js)$/.test(entry.name) ? [path] : [];
  });
}

describe('spec 8: no code branches on a flavor name', () => {
  it('no flavor id appears as a string literal outside shared/flavors.ts', () => {
    const hits = [...sources('hub'), ...sources('shared')]
      .filter((path) => path !== join('shared', 'flavors.ts'))
      .flatMap((path) =>
        readFileSync(path, 'utf8')
          .split('\n')
          .map((line, index) => ({ line: line.trim(), where: `${path}:${index + 1}` }))
          .filter(({ line }) => !line.startsWith('*') && !line.startsWith('//') && !line.startsWith('/*') && literal.test(line))
          .map(({ where, line }) => `${where}: ${line}`),
      );
    expect(hits).toEqual([]);
  });
});
