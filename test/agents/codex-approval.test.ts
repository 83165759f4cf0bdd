/**
 * The real Codex CLI (pinned: test/agents/clis) asking for approval: `codex exec` takes no approval
 * policy (it runs with `never`: a command asking to leave the sandbox is refused, no hook fires), so
 * this runs Codex's TUI in a pseudo-terminal with `-a on-request`. The scripted model asks to run a
 * command outside the sandbox (`sandbox_permissions: "require_escalated"`); Codex fires its
 * `PermissionRequest` hook (codex-rs/hooks), our hook opens an approval on the hub, a person allows
 * it over HTTP, the waiting hook prints the decision, and the command runs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAgentHub } from './helpers/agent-hub.js';
import { recordedPayloads } from './helpers/claude.js';
import { codexInteractive, codexProject } from './helpers/codex.js';
import { saveFixture } from './helpers/fixtures.js';
import { eventually } from './helpers/hub-view.js';
import { startResponsesServer } from './helpers/responses-server.js';

const agent = useAgentHub();
const { env, view } = agent;

describe('codex (TUI) with approval policy on-request, a command asking to leave the sandbox', () => {
  it('asks through PermissionRequest; allowed over HTTP, the command runs', async () => {
    const model = await agent.model(startResponsesServer({ commands: ['touch allowed-by-a-person.txt'], escalate: true, finalText: 'All done.' }));
    const project = await agent.project(codexProject({ modelUrl: model.url, hubEnv: env(), record: true }));
    let decided = false;
    const run = await codexInteractive(project, 'Make a file with the shell, please', ['-a', 'on-request', '-s', 'workspace-write'], async () => {
      const session = (await view.sessions()).find((s) => s.flavor === 'codex');
      if (!session) return false;
      const pending = (await view.approvals(session.sid)).find((a) => a.status === 'pending');
      if (pending && !decided) {
        // Codex 0.169.0: the command, and the model's justification as `description`
        expect(pending).toMatchObject({ tool: 'Bash', input: { command: 'touch allowed-by-a-person.txt', description: 'Run touch allowed-by-a-person.txt?' } });
        expect(existsSync(join(project.dir, 'allowed-by-a-person.txt')), 'nothing ran before the decision').toBe(false);
        expect(await view.decide(session.sid, pending.approvalId, 'allow')).toBe(200);
        decided = true;
      }
      return decided && (await view.turns(session.sid)).at(-1)?.status === 'completed';
    });
    saveFixture('tui-permission-request', project, recordedPayloads(project));
    expect(decided).toBe(true);
    expect(existsSync(join(project.dir, 'allowed-by-a-person.txt'))).toBe(true);
    const session = (await view.sessions()).find((s) => s.flavor === 'codex')!;
    expect((await view.approvals(session.sid))[0]).toMatchObject({ status: 'allowed' });
    expect((await view.turns(session.sid)).at(-1)).toMatchObject({ response: 'All done.' });
    expect(run.code, run.screen.slice(-2000)).toBe(0);
  }, 120_000);

  it('denied over HTTP with a message: the command never runs, the model reads the denial', async () => {
    const model = await agent.model(startResponsesServer({ commands: ['touch denied-by-a-person.txt'], escalate: true, finalText: 'All done.' }));
    const project = await agent.project(codexProject({ modelUrl: model.url, hubEnv: env() }));
    let decided = false;
    const run = await codexInteractive(project, 'Make a file with the shell, please', ['-a', 'on-request', '-s', 'workspace-write'], async () => {
      const session = (await view.sessions()).find((s) => s.flavor === 'codex');
      if (!session) return false;
      const pending = (await view.approvals(session.sid)).find((a) => a.status === 'pending');
      if (pending && !decided) {
        expect(await view.decide(session.sid, pending.approvalId, 'deny', 'Not in this folder, please.')).toBe(200);
        decided = true;
      }
      return decided && (await view.turns(session.sid)).at(-1)?.status === 'completed';
    });
    expect(run.code, run.screen.slice(-2000)).toBe(0);
    expect(existsSync(join(project.dir, 'denied-by-a-person.txt'))).toBe(false);
    const session = (await view.sessions()).find((s) => s.flavor === 'codex')!;
    expect((await view.approvals(session.sid))[0]).toMatchObject({ status: 'denied', message: 'Not in this folder, please.' });
    // Codex 0.169.0 hands the model the hook's message as the command's failure: `Rejected("<message>")`
    const outputs = model.requests.flatMap((r) => (r.input as { type: string; output?: string }[]).filter((i) => i.type === 'function_call_output').map((i) => i.output ?? ''));
    expect(outputs.some((o) => o.includes('Rejected(\\"Not in this folder, please.\\")'))).toBe(true);
  }, 120_000);
});
