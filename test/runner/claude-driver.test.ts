/**
 * The Claude Code driver (runner/drivers/claude-stream-json.ts) with the real CLI against a scripted
 * model server: one live process taking a second prompt, a tool approval round trip, an interrupt,
 * a resume by id that carries the conversation, a resume of an id the agent does not know, and an
 * API that refuses the agent (its retries and its error in its own words).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startClaudeStreamJson } from '../../runner/drivers/claude-stream-json.js';
import type { ApprovalRequest, DriverEvents, TurnEnd } from '../../runner/drivers/driver.js';
import { agentBinaries } from '../agents/helpers/claude.js';
import { startAnthropicServer } from '../agents/helpers/anthropic-server.js';
import type { ModelServer } from '../agents/helpers/model-server.js';
import { startRefusingServer } from '../agents/helpers/refusing-model-server.js';
import { claudeHome, type ClaudeHome } from './helpers/claude-home.js';

interface Recorded {
  events: string[];
  turns: TurnEnd[];
  approvals: ApprovalRequest[];
  ids: string[];
  exit?: { code: number | null; stderr: string };
  rejected?: string;
}

function recorder(decide: (request: ApprovalRequest) => { allow: boolean }) {
  const seen: Recorded = { events: [], turns: [], approvals: [], ids: [] };
  const waiters: (() => void)[] = [];
  const events: DriverEvents = {
    sessionId: (id) => { seen.ids.push(id); seen.events.push('id'); },
    turnStart: (prompt) => seen.events.push(`start:${prompt}`),
    toolUse: (tool) => seen.events.push(`tool:${tool.tool}`),
    usage: () => seen.events.push('usage'),
    retrying: (message) => seen.events.push(`retrying:${message}`),
    turnStop: (end) => { seen.turns.push(end); seen.events.push(`stop:${end.status}`); waiters.splice(0).forEach((w) => w()); },
    approval: async (request) => { seen.approvals.push(request); seen.events.push(`approval:${request.tool}`); return decide(request) as { allow: true }; },
    resumeRejected: (error) => { seen.rejected = error; },
    exit: (end) => { seen.exit = end; waiters.splice(0).forEach((w) => w()); },
  };
  const until = async (done: () => boolean, ms = 60_000) => {
    const deadline = Date.now() + ms;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out; events: ${seen.events.join(', ')}; exit: ${JSON.stringify(seen.exit)}`);
      await new Promise<void>((r) => { waiters.push(r); setTimeout(r, 200); });
    }
  };
  return { seen, events, until };
}

let model: ModelServer | undefined;
let home: ClaudeHome | undefined;
afterEach(async () => {
  await model?.close();
  home?.remove();
});

function envOf(h: ClaudeHome): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ...h.env };
}

describe('Claude Code stream-json driver (real CLI)', () => {
  it('takes a second prompt in the same live process, asks approval for a tool, and resumes by id with the earlier turns', async () => {
    model = await startAnthropicServer({ tools: [{ name: 'Bash', input: { command: 'touch approved.txt', description: 'make a file' } }], finalText: 'All done.' });
    home = claudeHome(model.url);
    const first = recorder(() => ({ allow: true }));
    const driver = startClaudeStreamJson({ command: agentBinaries().claude, cwd: home.dir, env: envOf(home) }, first.events);
    expect(driver.initialSessionId).toMatch(/^[0-9a-f-]{36}$/);
    driver.send('first prompt');
    await first.until(() => first.seen.turns.length === 1);
    driver.send('second prompt');
    await first.until(() => first.seen.turns.length === 2);
    expect(first.seen.turns.map((t) => t.status)).toEqual(['completed', 'completed']);
    expect(first.seen.turns[1]!.response).toBe('All done.');
    expect(first.seen.approvals.map((a) => a.tool)).toEqual(['Bash', 'Bash']);
    expect(first.seen.events.filter((e) => e.startsWith('tool:'))).toEqual(['tool:Bash', 'tool:Bash']);
    expect(first.seen.events).toContain('usage');
    expect(existsSync(join(home.dir, 'approved.txt'))).toBe(true);
    await driver.stop(10_000);
    await first.until(() => first.seen.exit !== undefined);

    const before = model.requests.length;
    const second = recorder(() => ({ allow: true }));
    const resumed = startClaudeStreamJson({ command: agentBinaries().claude, cwd: home.dir, env: envOf(home), resumeToken: driver.initialSessionId! }, second.events);
    resumed.send('third prompt');
    await second.until(() => second.seen.turns.length === 1);
    const seenByModel = JSON.stringify(model.requests.slice(before).filter((r) => Array.isArray(r.tools) && (r.tools as unknown[]).length > 0));
    expect(seenByModel).toContain('first prompt');
    expect(seenByModel).toContain('third prompt');
    expect(second.seen.ids.at(-1) ?? resumed.initialSessionId).toBe(driver.initialSessionId);
    await resumed.stop(10_000);
  }, 120_000);

  it('feeds a denial back, and an interrupt ends the turn while the agent stays', async () => {
    model = await startAnthropicServer({ tools: [{ name: 'Bash', input: { command: 'touch approved.txt', description: 'make a file' } }], finalText: 'Fine.' });
    home = claudeHome(model.url);
    let release: (() => void) | undefined;
    const held = new Promise<void>((r) => (release = r));
    const rec = recorder(() => ({ allow: false }));
    const events = { ...rec.events, approval: async (request: ApprovalRequest) => { rec.seen.approvals.push(request); await held; return { allow: false as const, message: 'not now' }; } };
    const driver = startClaudeStreamJson({ command: agentBinaries().claude, cwd: home.dir, env: envOf(home) }, events);
    driver.send('run something');
    await rec.until(() => rec.seen.approvals.length === 1);
    await driver.interrupt();
    await rec.until(() => rec.seen.turns.length === 1);
    expect(rec.seen.turns[0]!.status).toBe('aborted');
    release!();
    driver.send('again');
    await rec.until(() => rec.seen.turns.length === 2);
    expect(rec.seen.exit).toBeUndefined();
    expect(existsSync(join(home.dir, 'approved.txt'))).toBe(false);
    await driver.stop(10_000);
  }, 120_000);

  it('passes every value attached to its option: a resume token that is an option is never read as one (issue 45)', async () => {
    model = await startAnthropicServer({ tools: [], finalText: 'x' });
    home = claudeHome(model.url);
    const proof = join(home.root, 'proof');
    const rec = recorder(() => ({ allow: true }));
    // the runner refuses this before any driver sees it (spawn-check.ts); the driver alone must not run it either
    const hostile = `--settings={"apiKeyHelper":"touch ${proof}; echo k"}`;
    const driver = startClaudeStreamJson({ command: agentBinaries().claude, cwd: home.dir, env: envOf(home), resumeToken: hostile }, rec.events);
    driver.send('hello');
    await rec.until(() => rec.seen.exit !== undefined);
    expect(rec.seen.exit!.code).not.toBe(0);
    expect(existsSync(proof)).toBe(false);
  }, 60_000);

  it("reports the API's refusals as it retries, in the agent's own words, then the turn's error (issue 46.8)", async () => {
    const refusing = await startRefusingServer(401, 'invalid x-api-key');
    try {
      home = claudeHome(refusing.url);
      const rec = recorder(() => ({ allow: true }));
      // one retry, so the turn fails in a second rather than after Claude Code's ten
      const driver = startClaudeStreamJson({ command: agentBinaries().claude, cwd: home.dir, env: { ...envOf(home), CLAUDE_CODE_MAX_RETRIES: '1' } }, rec.events);
      driver.send('hello');
      await rec.until(() => rec.seen.turns.length === 1);
      expect(rec.seen.events).toContain('retrying:API request failed (HTTP 401: authentication_failed); retry 1 of 1');
      expect(rec.seen.turns[0]).toMatchObject({ status: 'error', error: expect.stringContaining('Invalid API key') });
      await driver.stop(10_000);
    } finally {
      await refusing.close();
    }
  }, 60_000);

  it('reports an id it cannot resume as rejected', async () => {
    model = await startAnthropicServer({ tools: [], finalText: 'x' });
    home = claudeHome(model.url);
    const rec = recorder(() => ({ allow: true }));
    const driver = startClaudeStreamJson({ command: agentBinaries().claude, cwd: home.dir, env: envOf(home), resumeToken: '00000000-0000-4000-8000-000000000000' }, rec.events);
    driver.send('hello');
    await rec.until(() => rec.seen.exit !== undefined);
    expect(rec.seen.rejected, rec.seen.exit?.stderr).toBeDefined();
  }, 60_000);
});
