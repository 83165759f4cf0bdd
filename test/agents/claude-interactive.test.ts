/**
 * The real Claude Code CLI interactive, in a pseudo-terminal (`script(1)`), started with a prompt:
 * the tool it asks to run is allowed or denied by a person from the hub (over HTTP, as the
 * dashboard's buttons do) while the terminal shows the same question; the person then types
 * `/exit`. The hub shows the turn completed, the tool done (or not run), the session ended.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAgentHub } from './helpers/agent-hub.js';
import { startAnthropicServer } from './helpers/anthropic-server.js';
import { claudeInteractive, claudeProject, recordedPayloads } from './helpers/claude.js';
import { saveFixture } from './helpers/fixtures.js';
import { eventually } from './helpers/hub-view.js';

const agent = useAgentHub();
const { env, view } = agent;

/** Runs an interactive session; the approval it opens is decided from the hub; `/exit` once the turn is closed there. */
async function interactiveDeciding(decision: 'allow' | 'deny') {
  const model = await agent.model(startAnthropicServer({ tools: [{ name: 'Bash', input: { command: 'touch approved-by-hub.txt', description: 'Make a file' } }], finalText: 'All done.' }));
  const project = await agent.project(claudeProject({ modelUrl: model.url, hubEnv: env(), record: true }));
  let sid: string | undefined;
  let decided = false;
  const ready = async () => {
    sid ??= (await view.sessions()).find((s) => s.flavor === 'claude')?.sid;
    if (sid === undefined) return false;
    if (!decided) {
      const pending = (await view.approvals(sid)).find((a) => a.status === 'pending');
      if (pending === undefined) return false;
      expect(pending).toMatchObject({ tool: 'Bash', input: { command: 'touch approved-by-hub.txt' } });
      expect(await view.decide(sid, pending.approvalId, decision, decision === 'deny' ? 'not in this repo' : undefined)).toBe(200);
      decided = true;
    }
    return (await view.turns(sid)).at(-1)?.status === 'completed';
  };
  const run = await claudeInteractive(project, 'Make a file with bash, please', ready);
  expect(sid).toBeDefined();
  return { run, sid: sid!, project };
}

describe('claude (interactive, in a pseudo-terminal) with our hooks', () => {
  it('runs the tool a person allowed from the hub; after /exit the hub shows the turn completed, the tool done, the session ended', async () => {
    const { run, sid, project } = await interactiveDeciding('allow');
    expect(run.code, run.screen.slice(-2000)).toBe(0);
    expect(existsSync(join(project.dir, 'approved-by-hub.txt'))).toBe(true);
    const settled = await eventually(async () => {
      const snapshot = await view.session(sid);
      return snapshot.activity === 'ended' ? snapshot : undefined;
    }, 10_000, 'the session ended on the hub');
    const turn = (await view.turns(sid)).at(-1)!;
    expect(turn).toMatchObject({ status: 'completed', prompt: 'Make a file with bash, please', response: 'All done.' });
    expect(turn.activities.map((a) => [a.tool, a.status])).toEqual([['Bash', 'done']]);
    expect(turn.usage.reduce((sum, u) => sum + u.inputTokens, 0)).toBeGreaterThan(0);
    expect(settled.attention).toBeNull();
    expect((await view.approvals(sid)).map((a) => a.status)).toEqual(['allowed']);
    saveFixture('interactive-approved', project, recordedPayloads(project));
  }, 120_000);

  it('does not run a tool a person denied from the hub; the hub shows the denial, no finished tool, the session ended', async () => {
    const { sid, project } = await interactiveDeciding('deny');
    expect(existsSync(join(project.dir, 'approved-by-hub.txt'))).toBe(false);
    await eventually(async () => ((await view.session(sid)).activity === 'ended' ? true : undefined), 10_000, 'the session ended on the hub');
    const turn = (await view.turns(sid)).at(-1)!;
    expect(turn).toMatchObject({ status: 'completed', response: 'All done.' });
    expect(turn.activities.filter((a) => a.status === 'done')).toEqual([]);
    expect(await view.approvals(sid)).toMatchObject([{ status: 'denied', tool: 'Bash', message: 'not in this repo' }]);
    saveFixture('interactive-denied', project, recordedPayloads(project));
  }, 120_000);
});
