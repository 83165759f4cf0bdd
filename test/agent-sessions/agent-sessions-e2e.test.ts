/**
 * Every session on the machine (issue 48, spec section 16), with the real agents: the real Claude
 * Code CLI run with `-p` and no hooks, and the real Codex CLI's `exec`, each against our scripted
 * model servers, write their own transcripts; a real runner lists them, the hub imports each once
 * with its turns, and Claude's continues from the API with its conversation (the model server sees
 * the earlier turns). Hostile transcripts (a 200 MB file, broken JSON lines, a session id that is a
 * CLI option, a directory outside the roots) are refused or cut with the reason; the runner lives on.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentSession } from '../../shared/protocol/agent-sessions.js';
import type { Activity, SessionSnapshot, TurnSummary } from '../../shared/protocol/session.js';
import { startAnthropicServer } from '../agents/helpers/anthropic-server.js';
import { agentBinaries, runToEnd } from '../agents/helpers/claude.js';
import type { ModelServer } from '../agents/helpers/model-server.js';
import { startResponsesServer } from '../agents/helpers/responses-server.js';
import { waitFor } from '../helpers/clients.js';
import { claudeHome, type ClaudeHome } from '../runner/helpers/claude-home.js';
import { codexHome, type CodexHome } from '../runner/helpers/codex-home.js';
import { startHubAndRunner, type HubAndRunner } from '../runner/helpers/hub-and-runner.js';

let claudeModel: ModelServer;
let codexModel: ModelServer;
let claude: ClaudeHome;
let codex: CodexHome;
let parts: HubAndRunner;
let claudeId: string;
let codexId: string;

const call = (method: string, path: string, body?: unknown) => parts.call(method, path, body);
const listed = async (query = '') => ((await call('GET', `/api/machines/${parts.machine.machineId}/agent-sessions${query}`)).body.sessions as AgentSession[]);
const turnsOf = async (sid: string) => {
  const body = (await call('GET', `/api/sessions/${sid}/turns`)).body as unknown as (TurnSummary & { activities: Activity[] })[] | { turns: (TurnSummary & { activities: Activity[] })[] };
  return Array.isArray(body) ? body : body.turns;
};
const projectsDir = () => join(claude.home, '.claude', 'projects');
const claudeFile = () => {
  const folder = readdirSync(projectsDir())[0]!;
  return join(projectsDir(), folder, `${claudeId}.jsonl`);
};

beforeAll(async () => {
  claudeModel = await startAnthropicServer({ tools: [{ name: 'Write', input: { file_path: '/tmp/never-written-by-the-import-test.txt', content: 'x\n' } }], finalText: 'Wrote it.' });
  codexModel = await startResponsesServer({ commands: ['echo hello'], finalText: 'Ran it.' });
  claude = claudeHome(claudeModel.url);
  codex = codexHome(codexModel.url);
  const env = { ...claude.env, PATH: process.env.PATH ?? '' };
  const first = await runToEnd(agentBinaries().claude, ['-p', 'write x please', '--output-format', 'json'], { cwd: claude.dir, env });
  expect(first.code, first.stderr).toBe(0);
  claudeId = (JSON.parse(first.stdout) as { session_id: string }).session_id;
  const second = await runToEnd(agentBinaries().claude, ['-p', 'and a second prompt', '--resume', claudeId, '--output-format', 'json'], { cwd: claude.dir, env });
  expect(second.code, second.stderr).toBe(0);
  const ran = await runToEnd(agentBinaries().codex, ['exec', '--skip-git-repo-check', '-s', 'workspace-write', '--json', 'run echo please'], { cwd: codex.dir, env: codex.env });
  expect(ran.code, ran.stderr).toBe(0);
  codexId = /"thread_id":"([^"]+)"/.exec(ran.stdout)![1]!;
  parts = await startHubAndRunner({ roots: [claude.root, codex.root], env: { ...claude.env, CODEX_HOME: codex.codexHome, XDG_CONFIG_HOME: claude.root } });
}, 120_000);

afterAll(async () => {
  await parts?.stop();
  await claudeModel?.close();
  await codexModel?.close();
  claude?.remove();
  codex?.remove();
});

describe('sessions found on the machine, imported once (real Claude Code and Codex transcripts)', () => {
  it('lists both agents\' sessions under the roots, newest first, with title, times and turns', async () => {
    const sessions = await listed();
    const fromClaude = sessions.find((s) => s.agentSessionId === claudeId);
    const fromCodex = sessions.find((s) => s.agentSessionId === codexId);
    expect(fromClaude).toMatchObject({ flavor: 'claude', path: claude.dir, title: 'write x please', turns: 2, sid: null });
    expect(fromCodex).toMatchObject({ flavor: 'codex', path: codex.dir, title: 'run echo please', turns: 1, sid: null });
    expect(fromClaude!.problem).toBeUndefined();
    expect(fromClaude!.startedAt).toBeLessThanOrEqual(fromClaude!.updatedAt);
    expect(sessions.indexOf(fromCodex!)).toBeLessThan(sessions.indexOf(fromClaude!));
    // under a directory: that directory's only
    expect((await listed(`?path=${encodeURIComponent(codex.dir)}`)).map((s) => s.agentSessionId)).toEqual([codexId]);
  });

  it('imports Claude Code\'s session once, with its turns, tools, closing words and usage, ended; twice changes nothing', async () => {
    const made = await call('POST', `/api/machines/${parts.machine.machineId}/agent-sessions/import`, { flavor: 'claude', agentSessionId: claudeId });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const sid = made.body.sid as string;
    const session = (await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot & { activity: string };
    expect(session.lifecycle.state).toBe('ended');
    expect(session.tag).toBe(claudeId);
    expect(session.metadata.value).toMatchObject({ claudeSessionId: claudeId, path: claude.dir, machineId: parts.machine.machineId });
    const turns = await turnsOf(sid);
    expect(turns.map((t) => [t.prompt, t.status, t.response])).toEqual([
      ['write x please', 'completed', 'Wrote it.'],
      ['and a second prompt', 'completed', 'Wrote it.'],
    ]);
    expect(turns[0]!.activities.map((a) => a.tool)).toEqual(['Write']);
    expect(turns[0]!.activities[0]!.input).toMatchObject({ file_path: '/tmp/never-written-by-the-import-test.txt' });
    // usage where the transcript has it: two model calls in the first turn (the tool call, the close), 120 in and 30 out each
    expect(turns[0]!.usage).toEqual([expect.objectContaining({ inputTokens: 240, outputTokens: 60 })]);
    const again = await call('POST', `/api/machines/${parts.machine.machineId}/agent-sessions/import`, { flavor: 'claude', agentSessionId: claudeId });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ sid, created: false });
    expect((await turnsOf(sid)).length).toBe(2);
    expect((await listed()).find((s) => s.agentSessionId === claudeId)?.sid).toBe(sid);
  });

  it('imports Codex\'s session with its command and closing words', async () => {
    const made = await call('POST', `/api/machines/${parts.machine.machineId}/agent-sessions/import`, { flavor: 'codex', agentSessionId: codexId });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const turns = await turnsOf(made.body.sid as string);
    expect(turns.map((t) => [t.prompt, t.response])).toEqual([['run echo please', 'Ran it.']]);
    expect(turns[0]!.activities.map((a) => a.tool)).toEqual(['exec_command']);
    expect(turns[0]!.activities[0]!.input).toEqual({ cmd: 'echo hello' });
  });

  it('continues the imported Claude Code session from the API: the model sees the earlier turns', async () => {
    const sid = ((await listed()).find((s) => s.agentSessionId === claudeId))!.sid!;
    const before = claudeModel.requests.length;
    const continued = await call('POST', `/api/sessions/${sid}/continue`, { prompt: 'a third prompt' });
    expect(continued.status, JSON.stringify(continued.body)).toBe(202);
    await waitFor(async () => claudeModel.requests.slice(before).some((r) => JSON.stringify(r.messages).includes('a third prompt')), 60_000, `the continued prompt reaches the model; runner:\n${parts.runner.output()}`);
    const request = JSON.stringify(claudeModel.requests.slice(before).find((r) => JSON.stringify(r.messages).includes('a third prompt'))!.messages);
    expect(request).toContain('write x please');
    expect(request).toContain('and a second prompt');
    expect((await call('POST', `/api/sessions/${sid}/stop`)).status).toBe(202);
  });
});

describe('hostile transcripts: refused or cut with the reason, the runner alive', () => {
  it('a 200 MB file, broken lines, an id that is an option, a directory outside the roots', async () => {
    const folder = join(projectsDir(), 'hostile');
    mkdirSync(folder, { recursive: true });
    const real = readFileSync(claudeFile(), 'utf8');
    // 200 MB (sparse: nothing is written, the size is what the runner sees)
    const huge = randomUUID();
    writeFileSync(join(folder, `${huge}.jsonl`), '');
    truncateSync(join(folder, `${huge}.jsonl`), 200 * 1024 * 1024);
    // the real transcript under another id, with lines that are not JSON
    const broken = randomUUID();
    writeFileSync(join(folder, `${broken}.jsonl`), real.replaceAll(claudeId, broken));
    appendFileSync(join(folder, `${broken}.jsonl`), '{"type":"user", not json\n\u0000\u0001garbage\n[1,2,3]\n');
    // a session id that would be read as an option on the agent's command line
    const option = '--dangerously-skip-permissions';
    writeFileSync(join(folder, `${option}.jsonl`), real.replaceAll(claudeId, option));
    // a directory outside the roots
    const outside = randomUUID();
    writeFileSync(join(folder, `${outside}.jsonl`), real.replaceAll(claudeId, outside).replaceAll(claude.dir, '/etc'));

    const raw = await call('GET', `/api/machines/${parts.machine.machineId}/agent-sessions`);
    expect(raw.status, JSON.stringify(raw.body).slice(0, 500)).toBe(200);
    const all = raw.body.sessions as AgentSession[];
    expect(all.find((s) => s.agentSessionId === huge)?.problem).toMatch(/200 MB, over the 64 MB/);
    expect(all.find((s) => s.agentSessionId === option)?.problem).toMatch(/not the agent's own, never imported/);
    expect(all.find((s) => s.agentSessionId === outside)).toBeUndefined();
    // the same turns as the transcript it was copied from (with the turn its continue added)
    const original = all.find((s) => s.agentSessionId === claudeId)!;
    expect(original.turns).toBeGreaterThanOrEqual(2);
    expect(all.find((s) => s.agentSessionId === broken)?.turns).toBe(original.turns);
    expect(all.find((s) => s.agentSessionId === broken)?.problem).toBeUndefined();

    const importing = (agentSessionId: string) => call('POST', `/api/machines/${parts.machine.machineId}/agent-sessions/import`, { flavor: 'claude', agentSessionId });
    const tooBig = await importing(huge);
    expect([tooBig.status, tooBig.body.error]).toEqual([422, 'transcript_refused']);
    const asOption = await importing(option);
    expect([asOption.status, asOption.body.error]).toEqual([422, 'transcript_refused']);
    const elsewhere = await importing(outside);
    expect([elsewhere.status, elsewhere.body.error]).toEqual([422, 'transcript_refused']);
    expect(String(elsewhere.body.message)).toContain('outside this machine\'s roots');
    const cut = await importing(broken);
    expect(cut.status).toBe(201);
    expect(cut.body.cut).toBe('3 lines were not JSON and were skipped');
    expect((await turnsOf(cut.body.sid as string)).length).toBe(original.turns);
    // nothing was made of the refused ones, and the runner still answers
    const sessions = (await call('GET', '/api/sessions')).body.sessions as SessionSnapshot[];
    expect(sessions.filter((s) => [huge, option, outside].includes(s.tag))).toEqual([]);
    expect(((await call('GET', '/api/machines')).body.machines as { online: boolean }[])[0]!.online).toBe(true);
    expect((await listed()).length).toBeGreaterThan(2);
  });
});
