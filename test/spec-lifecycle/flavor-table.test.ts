/**
 * Spec section 8, row by row: the flavor table is copied here from the spec (not read from
 * shared/flavors.ts), so a registry that drifts from the spec fails. Each row is checked by what a
 * runner and the HTTP API see: which key `POST .../resume` hands out, and whether `session-end` ends
 * the run or only closes the turn.
 */
import { describe, expect, it } from 'vitest';
import { connectRunner, startSession, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { postResume } from '../resume/http.js';
import { fetchTurns } from '../lifecycle/http.js';

const SPEC_TABLE: [flavor: string, tokenKey: string, turnBoundary: boolean][] = [
  ['claude', 'claudeSessionId', false],
  ['codex', 'codexSessionId', false],
  ['cursor', 'cursorSessionId', false],
  ['gemini', 'geminiSessionId', false],
  ['opencode', 'opencodeSessionId', false],
  ['kimi', 'kimiSessionId', false],
  ['copilot', 'copilotSessionId', false],
  ['pi', 'piSessionId', false],
  ['grok', 'grokSessionId', true],
  ['antigravity', 'agySessionId', true],
  ['hermes', 'hermesSessionId', true],
];

let hub: TestHub;
let runner: RunnerSocket;
useTestHub(async (started) => {
  hub = started;
  runner = await connectRunner(hub.url, hub.tokens.runner);
});

describe('spec 8: the flavor table', () => {
  for (const [flavor, tokenKey, turnBoundary] of SPEC_TABLE) {
    it(`${flavor}: resume token under ${tokenKey}; session-end ${turnBoundary ? 'is a turn boundary' : 'ends the run'}`, async () => {
      const session = await startSession(runner, { flavor, metadata: { path: '/p', [tokenKey]: `${flavor}-tok` } });
      expect(session.resume).toEqual({ available: true, safe: false, tokenKey, reason: 'run_in_progress' });
      const turn = await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'go' });
      expect(turn.ok).toBe(true);

      const end = await runner.emitWithAck('session-end', { sid: session.sid, reason: 'completed' });
      if (!end.ok) throw new Error(end.error.message);
      expect((await fetchTurns(hub, session.sid)).map((t) => t.status)).toEqual(['completed']);
      if (turnBoundary) {
        expect(end.session.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
        const finalize = await runner.emitWithAck('session-finalize', { sid: session.sid, reason: 'completed' });
        expect(finalize.ok && finalize.session.lifecycle).toMatchObject({ state: 'ended', lastRun: { status: 'success' } });
      } else {
        expect(end.session.lifecycle).toMatchObject({ state: 'ended', lastRun: { status: 'success' } });
      }

      const resume = await postResume(hub.url, hub.tokens.runner, session.sid);
      expect(resume.status).toBe(200);
      expect(resume.body).toMatchObject({ sid: session.sid, flavor, tokenKey, token: `${flavor}-tok`, policy: 'safe' });
    });
  }

  it("the token is the one under the session's own flavor key: another flavor's key is no token", async () => {
    const session = await startSession(runner, { flavor: 'codex', metadata: { path: '/p', claudeSessionId: 'claude-tok' } });
    await runner.emitWithAck('session-end', { sid: session.sid, reason: 'completed' });
    for (const policy of ['safe', 'force'] as const) {
      const resume = await postResume(hub.url, hub.tokens.runner, session.sid, policy);
      expect(resume).toEqual({ status: 409, body: { error: 'resume_unavailable', reason: 'no_token', message: expect.any(String) } });
    }
  });

  it('an unknown flavor has no resume-token key: resume is unavailable whatever the metadata holds', async () => {
    const session = await startSession(runner, { flavor: 'not-in-the-table', metadata: { path: '/p', claudeSessionId: 'x', notInTheTableSessionId: 'y' } });
    expect(session.resume).toEqual({ available: false, safe: false, tokenKey: null, reason: 'no_token' });
    await runner.emitWithAck('session-end', { sid: session.sid, reason: 'completed' });
    expect((await postResume(hub.url, hub.tokens.runner, session.sid, 'force')).body).toMatchObject({ error: 'resume_unavailable', reason: 'no_token' });
  });
});
