/**
 * The real Claude Code CLI (pinned: test/agents/clis) against a scripted model server, with our
 * hooks installed by `hook install claude --write` as they are by default: the Stop hook and,
 * beside it, the asyncRewake waiter (`--wake`, 10 minutes).
 * - `claude -p`: its hooks see the registry's headless value (CLAUDE_CODE_ENTRYPOINT "sdk-cli"), the
 *   waiter exits at once and the run ends promptly; a message queued before the run reaches the
 *   agent at its Stop (`decision: block`) and the model server receives the text.
 * - interactive `claude` in a terminal: its hooks see a value that is not headless ("cli"); a message
 *   posted after the agent stopped wakes it through the waiter (delivered `wake:Stop`), the model
 *   server receives the text, and `/exit` still ends the CLI while the next stop's waiter waits.
 * Either way the message shows on the hub as one turn whose prompt is the person's words (issue 34):
 * not Claude Code's wrapping of the wake (`<task-notification>` … `Stop hook blocking error …`, the
 * prompt its UserPromptSubmit reports), and no second turn "replaced by the next prompt".
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getFlavor } from '../../shared/flavors.js';
import { runsHeadless } from '../../hub/hook/wake-hook.js';
import { connectRunner } from '../helpers/clients.js';
import { useAgentHub } from './helpers/agent-hub.js';
import { startAnthropicServer } from './helpers/anthropic-server.js';
import { claudeHeadless, claudeInteractive, claudeProject, installedWaiter, recordedEnv, recordedPayloads } from './helpers/claude.js';
import { eventually } from './helpers/hub-view.js';

const agent = useAgentHub();
const { env, view, hub } = agent;
const wake = getFlavor('claude')!.hookConfig!.wakeHook!;

/** The text a person sent, as the model server received it in some request. */
const modelReceived = (requests: Record<string, unknown>[], text: string) => requests.some((request) => JSON.stringify(request.messages).includes(text));
/** The prompts the recorder saw at UserPromptSubmit, in order. */
const submittedPrompts = (payloads: Record<string, unknown>[]) => payloads.filter((p) => p.hook_event_name === 'UserPromptSubmit').map((p) => String(p.prompt));
/** The hub's turns as [prompt, status]. */
const turnsOf = async (sid: string) => (await view.turns(sid)).map((turn) => [turn.prompt, turn.status]);

describe('claude -p with the default install (the waiter installed)', () => {
  it('ends promptly; a message queued before the run reaches the agent at its Stop and the model server receives the text', async () => {
    const model = await agent.model(startAnthropicServer({ tools: [], finalText: 'All done.' }));
    const project = await agent.project(claudeProject({ modelUrl: model.url, hubEnv: env(), recordEnv: wake.headless.env, record: true }));
    expect(installedWaiter(project)).toMatchObject({ [wake.flag]: true, timeout: wake.waitMs / 1000 + 30 });

    const agentSessionId = randomUUID();
    // the session exists before the run (as one the agent ran before): a runner starts it under the agent's session id
    const runner = await connectRunner(hub().url, hub().tokens.runner);
    runner.on('message', (_payload, ack) => ack({ ok: false }));
    const started = await runner.emitWithAck('session-start', { tag: agentSessionId, flavor: 'claude', source: 'startup' });
    runner.disconnect();
    if (!started.ok) throw new Error(started.error.message);
    const sid = started.session.sid;
    expect(await view.post(sid, 'Also add a changelog entry, please.')).toBe(201);

    const run = await claudeHeadless(project, 'Say you are done', ['--session-id', agentSessionId]);
    // killed at 90 s otherwise: the waiter waiting its 10 minutes would hold `claude -p` open
    expect(run.code, run.stderr).toBe(0);
    expect(run.wallMs).toBeLessThan(60_000);
    // every Stop's hooks saw the headless value
    expect(recordedEnv(project).length).toBeGreaterThanOrEqual(1);
    for (const value of recordedEnv(project)) expect(runsHeadless('claude', { [wake.headless.env]: value }), value).toBe(true);
    // the first request is the prompt; a later one carries the person's words as the agent's next input
    expect(model.requests.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(model.requests[0]!.messages)).not.toContain('changelog');
    expect(JSON.stringify(model.requests.at(-1)!.messages)).toContain('Also add a changelog entry, please.');
    // headless, the waiter took nothing: the Stop hook delivered it
    expect((await view.messages(sid))[0]).toMatchObject({ state: 'delivered', via: `hook:${wake.event}` });
    // Claude Code goes on after the block without a prompt hook: the delivery opened the turn, the person's words
    expect(submittedPrompts(recordedPayloads(project))).toEqual(['Say you are done']);
    await eventually(async () => ((await view.turns(sid)).every((turn) => turn.status !== 'open') ? true : undefined), 10_000, 'the turns closed');
    expect(await turnsOf(sid)).toEqual([['Say you are done', 'completed'], ['Also add a changelog entry, please.', 'completed']]);
  }, 120_000);
});

describe('interactive claude with the default install', () => {
  it('a message posted after the agent stopped wakes it: the model server receives the text, delivered wake:Stop; /exit still ends the CLI', async () => {
    const model = await agent.model(startAnthropicServer({ tools: [], finalText: 'All done.' }));
    const project = await agent.project(claudeProject({ modelUrl: model.url, hubEnv: env(), recordEnv: wake.headless.env, record: true }));
    expect(installedWaiter(project)).toMatchObject({ [wake.flag]: true });
    const text = 'Please also update the changelog.';
    let sid: string | undefined;
    let posted = false;
    const ready = async () => {
      sid ??= (await view.sessions()).find((s) => s.flavor === 'claude')?.sid;
      if (sid === undefined) return false;
      if (!posted) {
        // the agent stopped: its first turn closed on the hub, the model server not yet sent the text
        if ((await view.turns(sid)).at(-1)?.status !== 'completed') return false;
        expect(modelReceived(model.requests, text)).toBe(false);
        expect(await view.post(sid, text)).toBe(201);
        posted = true;
      }
      // woken: the text went to the model server and the turn it opened closed
      const turns = await view.turns(sid);
      return modelReceived(model.requests, text) && turns.length >= 2 && turns.at(-1)?.status === 'completed' && submittedPrompts(recordedPayloads(project)).length >= 2;
    };
    const run = await claudeInteractive(project, 'Say you are done', ready);
    expect(run.code, run.screen.slice(-2000)).toBe(0);
    // the hooks in a terminal saw a value that is not headless
    expect(recordedEnv(project).length).toBeGreaterThanOrEqual(1);
    for (const value of recordedEnv(project)) expect(runsHeadless('claude', { [wake.headless.env]: value }), value).toBe(false);
    expect(await view.messages(sid!)).toMatchObject([{ text, state: 'delivered', via: `wake:${wake.event}` }]);
    // Claude Code reports the wake's prompt in its own words, the text inside (the registry's wakeHook.prompt)
    const woken = submittedPrompts(recordedPayloads(project))[1]!;
    expect(woken).toContain('<task-notification>');
    expect(woken).toContain(text);
    expect(await turnsOf(sid!)).toEqual([['Say you are done', 'completed'], [text, 'completed']]);
    await eventually(async () => ((await view.session(sid!)).activity === 'ended' ? true : undefined), 10_000, 'the session ended on the hub');
  }, 150_000);
});
