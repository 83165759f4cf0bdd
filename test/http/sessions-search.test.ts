/**
 * Finding sessions over HTTP: `GET /api/sessions?q&project&flavor&state&sort=activity|updated`
 * with cursor paging (docs/http.md). `q` looks in the tag, the title, the working directory and
 * every prompt of the session; `project` is metadata `projectRoot`, else `path`, and follows
 * metadata writes; `sort=activity` orders by last activity; every bad parameter is a 400 naming it.
 */
import { describe, expect, it } from 'vitest';
import type { ListSessionsResponse } from '../../shared/protocol/http.js';
import { startSession } from '../helpers/clients.js';
import { useHubWithRunner } from '../helpers/hub.js';

const t = useHubWithRunner();

async function get(query: string, token: string = t.hub.tokens.dashboard) {
  const response = await fetch(`${t.hub.url}/api/sessions${query}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as ListSessionsResponse & { error?: string; message?: string } };
}
async function tags(query: string): Promise<string[]> {
  const { status, body } = await get(query);
  if (status !== 200) throw new Error(`${query}: ${status} ${JSON.stringify(body)}`);
  return body.sessions.map((s) => s.tag);
}

async function seed() {
  const start = async (tag: string, metadata: Record<string, string>, flavor = 'claude') => {
    t.clock.advance(1000);
    return (await startSession(t.runner, { tag, flavor, metadata })).sid;
  };
  const ids = {
    login: await start('login-fix', { path: '/work/app/web', projectRoot: '/work/app', title: 'Fix the LOGIN page' }),
    ci: await start('ci', { path: '/work/app', title: '100% coverage' }, 'codex'),
    lib: await start('lib', { path: '/work/lib' }),
    other: await start('misc', { path: '/tmp/scratch' }, 'gemini'),
  };
  t.clock.advance(1000);
  expect(await t.runner.emitWithAck('prompt-submit', { sid: ids.lib, prompt: 'Rename the Login helper in utils' })).toMatchObject({ ok: true });
  return ids;
}

describe('GET /api/sessions: finding sessions', () => {
  it('q finds text in the tag, title, working directory or any prompt, ignoring ASCII case; % and _ are literal', async () => {
    await seed();
    // login-fix by its title, lib by its prompt
    expect(new Set(await tags('?q=login'))).toEqual(new Set(['login-fix', 'lib']));
    expect(await tags('?q=LoGiN')).toEqual(await tags('?q=login'));
    expect(await tags('?q=scratch')).toEqual(['misc']);
    expect(await tags('?q=misc')).toEqual(['misc']);
    expect(await tags(`?q=${encodeURIComponent('100%')}`)).toEqual(['ci']);
    expect(await tags(`?q=${encodeURIComponent('10_%')}`)).toEqual([]);
    expect(await tags('?q=nothing-like-this')).toEqual([]);
  });

  it('project is the reported git root (projectRoot), else the working directory; it follows metadata writes', async () => {
    const ids = await seed();
    // login-fix works in /work/app/web under the /work/app repository; ci has no projectRoot: its path
    expect(new Set(await tags(`?project=${encodeURIComponent('/work/app')}`))).toEqual(new Set(['login-fix', 'ci']));
    expect(await tags(`?project=${encodeURIComponent('/work/app/web')}`)).toEqual([]);
    const snapshot = (await get(`?q=lib`)).body.sessions[0]!;
    const ack = await t.runner.emitWithAck('update-metadata', { sid: ids.lib, expectedVersion: snapshot.metadata.version, patch: { projectRoot: '/work/app', title: 'Shared helpers' } });
    expect(ack).toMatchObject({ result: 'success' });
    expect(new Set(await tags(`?project=${encodeURIComponent('/work/app')}`))).toEqual(new Set(['login-fix', 'ci', 'lib']));
    expect(await tags('?q=shared%20HELPERS')).toEqual(['lib']);
    expect(await tags(`?project=${encodeURIComponent('/work/app')}&flavor=codex`)).toEqual(['ci']);
    expect(await tags(`?project=${encodeURIComponent('/work/app')}&q=login&state=running`)).toEqual(['lib', 'login-fix']);
  });

  it('sort=activity orders by last activity and pages with its own cursor; a cursor of another sort is refused naming cursor', async () => {
    await seed();
    const { body } = await get('?sort=activity');
    // lib's prompt came last; the others in the order they started, newest first
    expect(body.sessions.map((s) => s.tag)).toEqual(['lib', 'misc', 'ci', 'login-fix']);
    for (const [a, b] of body.sessions.slice(1).map((s, i) => [body.sessions[i]!, s] as const)) expect(a.lastActivityAt).toBeGreaterThanOrEqual(b.lastActivityAt);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: ListSessionsResponse } = await get(`?sort=activity&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      walked.push(...page.body.sessions.map((s) => s.tag));
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    expect(walked).toEqual(body.sessions.map((s) => s.tag));

    const updatedCursor = (await get('?limit=1')).body.nextCursor!;
    const mixed = await get(`?sort=activity&cursor=${updatedCursor}`);
    expect(mixed.status).toBe(400);
    expect(mixed.body).toMatchObject({ error: 'invalid_payload', message: expect.stringMatching(/^cursor: issued for sort=updated, not sort=activity/) });
  });

  const bad: [string, RegExp][] = [
    ['?q=', /querystring q: must not be empty/],
    [`?q=${'x'.repeat(257)}`, /querystring q: must be at most 256 characters/],
    ['?project=', /querystring project: must not be empty/],
    ['?sort=newest', /querystring sort: /],
    ['?state=sleeping', /querystring state: /],
  ];
  for (const [query, message] of bad) {
    it(`answers ${query.slice(0, 30)} with 400 invalid_payload naming the parameter`, async () => {
      const { status, body } = await get(query);
      expect(status).toBe(400);
      expect(body).toMatchObject({ error: 'invalid_payload', message: expect.stringMatching(message) });
    });
  }
});
