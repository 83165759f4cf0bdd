import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import type { ListSessionsResponse } from '../../shared/protocol/http.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';

export function fixture(name: string): Record<string, unknown>[] {
  return JSON.parse(readFileSync(resolve(import.meta.dirname, 'fixtures', name), 'utf8')) as Record<string, unknown>[];
}

/** Sends hook payloads one after another, as the agent does. */
export async function sendHooks(flavor: string, payloads: Record<string, unknown>[], env: Record<string, string>): Promise<CliResult[]> {
  const results: CliResult[] = [];
  for (const payload of payloads) results.push(await runCli(['hook', flavor], { stdin: JSON.stringify(payload), env }));
  return results;
}

/** Reads a hub's session API with its dashboard token; `hub` is looked up per call (a fresh one per test). */
export function hubReader(hub: () => { url: string; tokens: { dashboard: string } }) {
  async function get<T>(path: string): Promise<T> {
    const response = await fetch(`${hub().url}${path}`, { headers: { authorization: `Bearer ${hub().tokens.dashboard}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  }
  /** The one session with this tag (the agent's session id). */
  async function sessionByTag(tag: string): Promise<SessionSnapshot> {
    const { sessions } = await get<ListSessionsResponse>('/api/sessions?limit=500');
    const matching = sessions.filter((s) => s.tag === tag);
    expect(matching).toHaveLength(1);
    return matching[0]!;
  }
  return { get, sessionByTag };
}
