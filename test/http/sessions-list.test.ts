/**
 * Spec section 11: `GET /api/sessions?state=&flavor=&limit=&cursor=` — filters, limit bounds,
 * cursor pagination in (updatedAt, sid) newest-first order (ties included, and sessions updated
 * while a client walks the pages), bad cursors, tenants, and 401 on every endpoint.
 * A ManualClock makes "many sessions with the same updatedAt" exact instead of hoped for.
 */
import { describe, expect, it } from 'vitest';
import type { ListSessionsResponse } from '../../shared/protocol/http.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { connectRunner, startSession } from '../helpers/clients.js';
import { useHubWithRunner } from '../helpers/hub.js';

const t = useHubWithRunner();

function get(path: string, token: string | undefined = t.hub.tokens.dashboard) {
  return fetch(`${t.hub.url}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
}

async function list(query: string, token?: string): Promise<ListSessionsResponse> {
  const response = await get(`/api/sessions${query}`, token);
  if (response.status !== 200) throw new Error(`GET /api/sessions${query} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as ListSessionsResponse;
}

/** Follows nextCursor to the end; `between` runs after each page but the last. */
async function walk(query: string, between: (page: number) => Promise<void> = async () => {}) {
  const seen: SessionSnapshot[] = [];
  const pages: number[] = [];
  let cursor: string | null = null;
  for (let page = 0; ; page++) {
    const body: ListSessionsResponse = await list(`?${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
    seen.push(...body.sessions);
    pages.push(body.sessions.length);
    if (body.nextCursor === null) return { seen, pages };
    if (page > 1000) throw new Error('cursor never ended');
    cursor = body.nextCursor;
    await between(page);
  }
}

/** The order the spec promises: newest update first; ties broken by sid, descending. */
const newestFirst = (a: SessionSnapshot, b: SessionSnapshot) => b.updatedAt - a.updatedAt || (a.sid < b.sid ? 1 : a.sid > b.sid ? -1 : 0);
const sidsOf = (sessions: SessionSnapshot[]) => sessions.map((s) => s.sid);

async function startMany(count: number, prefix: string, flavor = 'claude') {
  const started = [];
  for (let i = 0; i < count; i++) started.push(await startSession(t.runner, { tag: `${prefix}-${i}`, flavor }));
  return started;
}

describe('filters', () => {
  it('filters by each lifecycle state and by flavor, alone and combined, and never lists another tenant', async () => {
    const sessions: Record<string, string> = {};
    for (const flavor of ['claude', 'codex']) {
      for (const state of ['running', 'idle', 'ended', 'archived']) sessions[`${flavor}/${state}`] = (await startSession(t.runner, { tag: `${flavor}-${state}`, flavor })).sid;
      expect(await t.runner.emitWithAck('session-end', { sid: sessions[`${flavor}/ended`]!, reason: 'exit' })).toMatchObject({ ok: true });
      expect(await t.runner.emitWithAck('session-archive', { sid: sessions[`${flavor}/archived`]!, reason: 'done' })).toMatchObject({ ok: true });
    }
    // everything goes quiet for the idle time but the two that should stay running
    t.clock.advance(t.hub.deps.config.idleMs);
    for (const flavor of ['claude', 'codex']) {
      expect(await t.runner.emitWithAck('prompt-submit', { sid: sessions[`${flavor}/running`]!, prompt: 'still here' })).toMatchObject({ ok: true });
    }
    expect((await t.hub.sweepNow()).sessionsIdled).toBe(2);
    // another tenant with sessions of every flavor and the running state, at the same instant
    const foreign = await connectRunner(t.hub.url, t.hub.tokens.otherRunner);
    const foreignSids = [(await startSession(foreign, { tag: 'f-claude' })).sid, (await startSession(foreign, { tag: 'f-codex', flavor: 'codex' })).sid];

    const expectSids = async (query: string, keys: string[]) => {
      const body = await list(query);
      expect(new Set(sidsOf(body.sessions)), query).toEqual(new Set(keys.map((key) => sessions[key])));
      expect(body.sessions).toEqual([...body.sessions].sort(newestFirst));
      expect(body.nextCursor).toBeNull();
      for (const s of body.sessions) {
        if (query.includes('state=')) expect(s.lifecycle.state).toBe(new URLSearchParams(query).get('state'));
        if (query.includes('flavor=')) expect(s.flavor).toBe(new URLSearchParams(query).get('flavor'));
      }
    };
    await expectSids('', Object.keys(sessions));
    for (const state of ['running', 'idle', 'ended', 'archived']) {
      await expectSids(`?state=${state}`, [`claude/${state}`, `codex/${state}`]);
      for (const flavor of ['claude', 'codex']) await expectSids(`?state=${state}&flavor=${flavor}`, [`${flavor}/${state}`]);
    }
    await expectSids('?flavor=codex', ['codex/running', 'codex/idle', 'codex/ended', 'codex/archived']);
    await expectSids('?flavor=gemini', []);
    await expectSids('?state=running&flavor=nobody', []);

    // each token sees its own namespace only, whatever its role
    for (const token of [t.hub.tokens.runner, t.hub.tokens.admin]) expect(new Set(sidsOf((await list('', token)).sessions))).toEqual(new Set(Object.values(sessions)));
    for (const token of [t.hub.tokens.otherDashboard, t.hub.tokens.otherRunner, t.hub.tokens.otherAdmin]) {
      expect(new Set(sidsOf((await list('?limit=500', token)).sessions))).toEqual(new Set(foreignSids));
      expect(sidsOf((await list('?state=archived', token)).sessions)).toEqual([]);
    }
  });

  it('answers 400 invalid_payload naming the field for an unknown state', async () => {
    const response = await get('/api/sessions?state=paused');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_payload', message: expect.stringMatching(/^querystring state: /) });
  });
});

describe('limit', () => {
  it('accepts 1 through 500 and defaults to 50', async () => {
    await startMany(52, 's');
    const one = await list('?limit=1');
    expect(one.sessions).toHaveLength(1);
    expect(one.nextCursor).not.toBeNull();
    expect((await list('')).sessions).toHaveLength(50);
    const all = await list('?limit=500');
    expect(all.sessions).toHaveLength(52);
    expect(all.nextCursor).toBeNull();
  });

  // an empty `limit=` is a value too (0 once coerced), not the default
  it.each(['0', '501', 'abc', '1.5', '-1', ''])('answers 400 invalid_payload naming limit for limit=%j', async (value) => {
    const response = await get(`/api/sessions?limit=${value}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_payload', message: expect.stringMatching(/^querystring limit: /) });
  });
});

describe('pagination', () => {
  it('walks every session exactly once, newest update first, across ties on updatedAt, for any page size', async () => {
    // three bursts created at one instant each: most neighbours share their updatedAt exactly
    for (let burst = 0; burst < 3; burst++) {
      await startMany(9, `b${burst}`, burst === 1 ? 'codex' : 'claude');
      t.clock.advance(1000);
    }
    const everything = (await list('?limit=500')).sessions;
    expect(everything).toHaveLength(27);
    expect(new Set(everything.map((s) => s.updatedAt)).size).toBe(3);
    expect(everything).toEqual([...everything].sort(newestFirst));

    for (const limit of [1, 2, 4, 9, 26, 27]) {
      const { seen, pages } = await walk(`limit=${limit}`);
      expect(sidsOf(seen), `limit ${limit}`).toEqual(sidsOf(everything));
      // the last page is never empty: a page that exactly finishes the list already says so
      expect(pages.at(-1)).toBeGreaterThan(0);
      expect(pages.length).toBe(Math.ceil(27 / limit));
    }
    // a cursor keeps the filter's order too
    const claude = everything.filter((s) => s.flavor === 'claude');
    expect(sidsOf((await walk('limit=4&flavor=claude')).seen)).toEqual(sidsOf(claude));
  });

  it('with sessions updated between pages: no session left alone during the walk is missed or repeated; an updated one moves to the front', async () => {
    for (let i = 0; i < 4; i++) {
      await startMany(5, `g${i}`);
      t.clock.advance(1000);
    }
    const before = sidsOf((await list('?limit=500')).sessions);
    expect(before).toHaveLength(20);
    const version = async (sid: string) => ((await (await get(`/api/sessions/${sid}`)).json()) as SessionSnapshot).metadata.version;
    const touch = async (sid: string) => {
      t.clock.advance(1);
      expect(await t.runner.emitWithAck('update-metadata', { sid, expectedVersion: await version(sid), patch: { touched: t.clock.now() } })).toMatchObject({ result: 'success' });
    };

    const seenBeforeUpdate = before.slice(0, 5); // page 1 of 4
    const alreadySeen = before[1]!; // seen on page 1, then updated
    const cursorRow = before[4]!; // the very row page 1's cursor was made from, then updated
    const notYetSeen = before[17]!; // updated before the walk got to it
    const { seen } = await walk('limit=5', async (page) => {
      if (page !== 0) return;
      await touch(alreadySeen);
      await touch(cursorRow);
      await touch(notYetSeen);
    });
    const walked = sidsOf(seen);
    // nothing is ever repeated within one walk: an update only moves a session ahead of the cursor
    expect(new Set(walked).size).toBe(walked.length);
    // every session nobody touched is there exactly once, in the order it had
    const untouched = before.filter((sid) => ![alreadySeen, cursorRow, notYetSeen].includes(sid));
    expect(walked.filter((sid) => untouched.includes(sid))).toEqual(untouched);
    // the pages fetched before the updates showed the updated sessions at their old place
    expect(walked.slice(0, 5)).toEqual(seenBeforeUpdate);
    // the one updated before the walk reached it jumped over the cursor: this walk does not show it
    expect(walked).not.toContain(notYetSeen);
    expect(walked).toHaveLength(19);

    // a fresh walk has all 20 exactly once, the updated ones first, most recent update first
    const again = sidsOf((await walk('limit=5')).seen);
    expect(again).toEqual([notYetSeen, cursorRow, alreadySeen, ...untouched]);
  });

  it.each([
    ['not base64 JSON', 'not-a-cursor'],
    ['empty', ''],
    ['JSON null', Buffer.from('null').toString('base64url')],
    ['an object', Buffer.from('{"updatedAt":1,"sid":"x"}').toString('base64url')],
    ['swapped fields', Buffer.from('["x",1]').toString('base64url')],
    ['one field', Buffer.from('[1]').toString('base64url')],
    ['too long', 'A'.repeat(600)],
    // JSON numbers no hub issues: PostgreSQL's bigint refused them with a 500
    ['a fractional updatedAt', Buffer.from('[1.5,"x"]').toString('base64url')],
    ['an updatedAt beyond any number', Buffer.from('[1e400,"x"]').toString('base64url')],
    ['an updatedAt beyond bigint', Buffer.from('[1e20,"x"]').toString('base64url')],
  ])('answers 400 invalid_payload naming the cursor for a bad cursor (%s)', async (_name, cursor) => {
    await startMany(2, 'c');
    const response = await get(`/api/sessions?limit=1&cursor=${encodeURIComponent(cursor)}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_payload', message: expect.stringMatching(/^(querystring )?cursor: /) });
  });

  it("a cursor from one tenant's list only positions another tenant's walk: it lists their own sessions", async () => {
    const foreign = await connectRunner(t.hub.url, t.hub.tokens.otherRunner);
    const theirs = [];
    for (let i = 0; i < 3; i++) theirs.push((await startSession(foreign, { tag: `theirs-${i}` })).sid);
    t.clock.advance(1000);
    await startMany(3, 'mine');
    const mine = await list('?limit=1');
    // the position is newer than all of theirs, so their walk from it is all of theirs and nothing of mine
    const body = await list(`?limit=500&cursor=${encodeURIComponent(mine.nextCursor!)}`, t.hub.tokens.otherDashboard);
    expect(new Set(sidsOf(body.sessions))).toEqual(new Set(theirs));
  });
});

describe('auth', () => {
  it('answers 401 unauthorized on every endpoint without a token or with an unknown one, and changes nothing', async () => {
    const session = await startSession(t.runner);
    const endpoints: [method: 'GET' | 'POST', path: string, body?: unknown][] = [
      ['GET', '/api/sessions'],
      ['GET', `/api/sessions/${session.sid}`],
      ['GET', `/api/sessions/${session.sid}/history`],
      ['GET', `/api/sessions/${session.sid}/turns`],
      ['POST', `/api/sessions/${session.sid}/resume`, { policy: 'force' }],
      ['POST', `/api/sessions/${session.sid}/archive`, { reason: 'x' }],
      ['POST', `/api/sessions/${session.sid}/repair`, {}],
    ];
    const before = await (await get(`/api/sessions/${session.sid}`)).json();
    for (const [method, path, body] of endpoints) {
      for (const authorization of [undefined, 'Bearer not-a-token', t.hub.tokens.admin /* no Bearer scheme */]) {
        const response = await fetch(`${t.hub.url}${path}`, {
          method,
          headers: { ...(authorization ? { authorization } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        expect(response.status, `${method} ${path} ${authorization ?? '(none)'}`).toBe(401);
        expect(await response.json()).toEqual({ error: 'unauthorized', message: expect.any(String) });
      }
    }
    expect(await (await get(`/api/sessions/${session.sid}`)).json()).toEqual(before);
  });
});
