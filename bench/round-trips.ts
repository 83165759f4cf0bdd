/**
 * Counts the round trips a group-committed batch costs on PostgreSQL (each `send` of PgStore that
 * starts while none is in flight: sends issued together share one), for batches of 1, 10 and 100
 * writes: `update-metadata` with a title, without one, and each kind of event of the real traffic
 * (issue 31: hook events, a runner's turn events, an approval, a message), every write of a batch
 * to a session of its own. `npm run bench:round-trips` with BENCH_POSTGRES_URL (admin URL; a fresh
 * database, dropped after), and the statements of each batch; BENCH_ONLY=REGEXP: only the kinds it matches; BENCH_VERBOSE=1: each send's statements;
 * BENCH_CARRY_ROWS=0: the store reads every batch's rows afresh (pg-store.ts, carryRows; by default a
 * batch starts from the rows its setup's batches left).
 */
import { PgStore } from '../hub/store/postgres/pg-store.js';
import { loadConfig } from '../hub/config.js';
import { createLogger } from '../hub/log.js';
import { ManualClock } from '../hub/clock.js';
import { startSession } from '../hub/lifecycle/session-start.js';
import { archive, endSession, runnerSocketsLost } from '../hub/lifecycle/session-events.js';
import { sweep } from '../hub/lifecycle/sweeps.js';
import { updateMetadata, updateState } from '../hub/lifecycle/versioned-writes.js';
import { reportUsage } from '../hub/lifecycle/usage-events.js';
import { setAttention } from '../hub/people/attention.js';
import { applyHookEvents } from '../hub/lifecycle/hook-events.js';
import { recordToolUse, stopTurn, submitPrompt } from '../hub/lifecycle/turn-events.js';
import { decideApproval, openApproval } from '../hub/people/approvals.js';
import { cancelMessage, queueMessage } from '../hub/people/messages.js';
import type { HubDeps } from '../hub/services/deps.js';
import { openBenchPostgres } from './scale-out-servers.js';

async function main(): Promise<void> {
  const postgres = await openBenchPostgres(process.env.BENCH_POSTGRES_URL ?? 'postgres://hub:hub@127.0.0.1:5432/postgres');
  const { url } = await postgres.createDatabase();
  const carry = process.env.BENCH_CARRY_ROWS !== '0';
  const store = await PgStore.open(url, { carryRows: carry });
  try {
    let sends = 0;
    let statements = 0;
    const proto = PgStore.prototype as unknown as { send: (...args: unknown[]) => Promise<unknown> };
    const send = proto.send;
    const verbose = process.env.BENCH_VERBOSE === '1';
    // a send issued while another is still in flight shares its round trip (pg's pipeline mode)
    let inFlight = 0;
    proto.send = function (this: unknown, ...args: unknown[]) {
      if (inFlight++ === 0) sends++;
      statements += (args[1] as unknown[]).length;
      if (verbose) process.stdout.write(`  send: ${(args[1] as { text: string }[]).map((s) => s.text.trim().split(/\s+/).slice(0, 4).join(' ')).join(' | ')}\n`);
      return send.apply(this, args).finally(() => inFlight--);
    };
    const deps: HubDeps = {
      store,
      hubId: 'rt',
      clock: new ManualClock(1_700_000_000_000),
      config: loadConfig({}, { logLevel: 'silent' }),
      log: createLogger('silent'),
      publisher: { publish: () => undefined },
    };
    const actor = { namespace: 'default', role: 'runner' as const, by: 'runner' as const, socketId: 's' };
    const person = { namespace: 'default', role: 'dashboard' as const, by: 'user' as const, socketId: 'p' };
    const startOne = async (tag: string, title?: string) =>
      (await startSession(deps, actor, { tag, flavor: 'claude', source: 'startup', metadata: { path: '/p', ...(title ? { title } : {}) } })).session.sid;
    let hookSeq = 0;
    const hook = (tag: string, payload: object) =>
      applyHookEvents(deps, { ...actor, socketId: undefined }, [{ id: `h${hookSeq}`, flavor: 'claude', firedAt: 1_700_000_000_000, seq: hookSeq++, payload: { session_id: tag, cwd: '/p', ...payload } }]);
    /** Each kind: a setup per session, then the one write whose batch is counted. */
    const kinds: { name: string; setup(i: string): Promise<string>; write(sid: string, i: string): Promise<unknown> }[] = [
      { name: 'update-metadata with a title', setup: (i) => startOne(i, 't'), write: (sid, i) => updateMetadata(deps, actor, { sid, expectedVersion: 1, patch: { title: `w${i}` }, requestId: i }) },
      { name: 'update-metadata, no title', setup: (i) => startOne(i), write: (sid, i) => updateMetadata(deps, actor, { sid, expectedVersion: 1, patch: { n: i } }) },
      { name: 'prompt-submit', setup: (i) => startOne(i), write: (sid) => submitPrompt(deps, actor, { sid, prompt: 'p' }) },
      {
        name: 'tool-use (in an open turn)',
        setup: async (i) => {
          const sid = await startOne(i);
          await submitPrompt(deps, actor, { sid, prompt: 'p' });
          return sid;
        },
        write: (sid, i) => recordToolUse(deps, actor, { sid, tool: 'Bash', input: { i }, output: 'ok', toolUseId: `t${i}` }),
      },
      {
        name: 'turn-stop',
        setup: async (i) => {
          const sid = await startOne(i);
          await submitPrompt(deps, actor, { sid, prompt: 'p' });
          return sid;
        },
        write: (sid) => stopTurn(deps, actor, { sid, response: 'done' }),
      },
      {
        name: 'hook UserPromptSubmit (a new prompt)',
        setup: async (i) => {
          await hook(`prompt-${i}`, { hook_event_name: 'UserPromptSubmit', prompt: 'p' });
          await hook(`prompt-${i}`, { hook_event_name: 'Stop' });
          return `prompt-${i}`;
        },
        write: (tag, i) => hook(tag, { hook_event_name: 'UserPromptSubmit', prompt: `next ${i}` }),
      },
      {
        name: 'hook PostToolUse (ending a running tool)',
        setup: async (i) => {
          await hook(`hook-${i}`, { hook_event_name: 'UserPromptSubmit', prompt: 'p' });
          await hook(`hook-${i}`, { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { i }, tool_use_id: `tu${i}` });
          return `hook-${i}`;
        },
        write: (tag, i) => hook(tag, { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { i }, tool_response: 'ok', tool_use_id: `tu${i}` }),
      },
      { name: 'session-start (a new session)', setup: async (i) => i, write: (tag) => startSession(deps, actor, { tag: `new-${tag}`, flavor: 'claude', source: 'startup', metadata: { path: '/p' } }) },
      { name: 'hook SessionStart (a new agent)', setup: async (i) => i, write: (tag) => hook(`agent-${tag}`, { hook_event_name: 'SessionStart', source: 'startup' }) },
      { name: 'session-end', setup: (i) => startOne(i), write: (sid) => endSession(deps, actor, { sid, reason: 'exit' }) },
      { name: 'session-archive', setup: (i) => startOne(i), write: (sid) => archive(deps, actor, { sid, reason: 'user' }) },
      {
        name: 'hook SessionEnd',
        setup: async (i) => {
          await hook(`ending-${i}`, { hook_event_name: 'SessionStart', source: 'startup' });
          return `ending-${i}`;
        },
        write: (tag) => hook(tag, { hook_event_name: 'SessionEnd', reason: 'exit' }),
      },
      {
        name: 'hook SessionEnd (a tool still running)',
        setup: async (i) => {
          await hook(`busy-${i}`, { hook_event_name: 'UserPromptSubmit', prompt: 'p' });
          await hook(`busy-${i}`, { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { i }, tool_use_id: `busy${i}` });
          return `busy-${i}`;
        },
        write: (tag) => hook(tag, { hook_event_name: 'SessionEnd', reason: 'exit' }),
      },
      {
        name: 'session-end (in an open turn)',
        setup: async (i) => {
          const sid = await startOne(i);
          await submitPrompt(deps, actor, { sid, prompt: 'p' });
          return sid;
        },
        write: (sid) => endSession(deps, actor, { sid, reason: 'exit' }),
      },
      { name: 'approval opened', setup: (i) => startOne(i), write: (sid) => openApproval(deps, actor, { sid, tool: 'Bash', input: { c: 1 } }) },
      { name: 'message queued', setup: (i) => startOne(i), write: (sid) => queueMessage(deps, person, { sid, text: 'hi', by: { tokenId: 'tok', label: null } }) },
      {
        name: 'message cancelled',
        setup: async (i) => {
          const sid = await startOne(i);
          return `${sid} ${(await queueMessage(deps, person, { sid, text: 'hi', by: { tokenId: 'tok', label: null } })).id}`;
        },
        write: (target) => cancelMessage(deps, person, { sid: target.split(' ')[0]!, messageId: target.split(' ')[1]! }),
      },
      ...(['allow', 'deny'] as const).map((decision) => ({
        name: `approval decided (${decision})`,
        setup: async (i: string) => {
          const sid = await startOne(i);
          await submitPrompt(deps, actor, { sid, prompt: 'p' });
          return `${sid} ${(await openApproval(deps, actor, { sid, tool: 'Bash', input: { c: 1 }, toolUseId: `a${i}` })).approvalId}`;
        },
        write: (target: string) => decideApproval(deps, person, { sid: target.split(' ')[0]!, approvalId: target.split(' ')[1]!, decision, decidedBy: 'tok' }),
      })),
      { name: 'attention', setup: (i) => startOne(i), write: (sid) => setAttention(deps, actor, { sid, kind: 'permission', message: 'may I?' }) },
      { name: 'update-state', setup: (i) => startOne(i), write: (sid) => updateState(deps, actor, { sid, expectedVersion: 0, agentState: { mode: 'plan' } }) },
      {
        name: 'usage (open turn)',
        setup: async (i) => {
          const sid = await startOne(i);
          await submitPrompt(deps, actor, { sid, prompt: 'p' });
          return sid;
        },
        write: (sid) => reportUsage(deps, actor, { sid, usage: [{ model: 'claude-sonnet-4-5', inputTokens: 10, outputTokens: 5 }] }),
      },
      {
        name: 'turn-stop with usage',
        setup: async (i) => {
          const sid = await startOne(i);
          await submitPrompt(deps, actor, { sid, prompt: 'p' });
          await reportUsage(deps, actor, { sid, usage: [{ model: 'claude-sonnet-4-5', inputTokens: 10, outputTokens: 5 }] });
          return sid;
        },
        write: (sid) => stopTurn(deps, actor, { sid, response: 'done', usage: [{ model: 'claude-sonnet-4-5', inputTokens: 20, outputTokens: 9 }, { model: 'no-price-known', inputTokens: 3, outputTokens: 1 }] }),
      },
      {
        name: 'hook Stop with usage',
        setup: async (i) => {
          await hook(`usage-${i}`, { hook_event_name: 'UserPromptSubmit', prompt: 'p' });
          return `usage-${i}`;
        },
        write: (tag) =>
          applyHookEvents(deps, { ...actor, socketId: undefined }, [
            { id: `h${hookSeq}`, flavor: 'claude', firedAt: 1_700_000_000_000, seq: hookSeq++, payload: { session_id: tag, cwd: '/p', hook_event_name: 'Stop' }, usage: [{ model: 'claude-sonnet-4-5', inputTokens: 7, outputTokens: 2 }] },
          ]),
      },
    ];
    const only = process.env.BENCH_ONLY === undefined ? undefined : new RegExp(process.env.BENCH_ONLY);
    process.stdout.write(carry ? 'rows carried from the setup\'s batches (BENCH_CARRY_ROWS=0: read afresh)\n' : 'rows read afresh by every batch\n');
    for (const kind of kinds.filter((k) => only === undefined || only.test(k.name))) {
      const counts: number[] = [];
      const sent: number[] = [];
      for (const size of [1, 10, 100]) {
        const keys = Array.from({ length: size }, (_, i) => `${kind.name.split(' ')[0]}-${size}-${i}`);
        const targets = await Promise.all(keys.map((key) => kind.setup(key)));
        sends = 0;
        statements = 0;
        await Promise.all(targets.map((target, i) => kind.write(target, keys[i]!)));
        counts.push(sends);
        sent.push(statements);
      }
      process.stdout.write(`${kind.name}: ${counts.join(' / ')} round trips for batches of 1 / 10 / 100 (${sent.join(' / ')} statements)\n`);
    }
    // a sweep with 1, 10 and 100 of everything due: turns timed out, sessions gone quiet, runs whose
    // runner was lost, queued messages past their time (each a session of its own)
    if (only === undefined || only.test('sweep')) {
      const counts: number[] = [];
      for (const size of [1, 10, 100]) {
        const sids = await Promise.all(Array.from({ length: size }, async (_, i) => {
          const sid = await startOne(`sweep-${size}-${i}`);
          await submitPrompt(deps, actor, { sid, prompt: 'p' });
          await queueMessage(deps, person, { sid, text: 'hi', by: { tokenId: 'tok', label: null } });
          return sid;
        }));
        await runnerSocketsLost(deps, sids);
        // and as many whose runner stays but is quiet: they go inactive, then idle
        await Promise.all(Array.from({ length: size }, (_, i) => startOne(`quiet-${size}-${i}`)));
        (deps.clock as ManualClock).advance(2 * 86_400_000);
        sends = 0;
        const report = await sweep(deps);
        counts.push(sends);
        if (report.turnsTimedOut < size || report.runsInterrupted < size || report.messagesExpired < size) throw new Error(`the sweep did not find all due: ${JSON.stringify(report)}`);
      }
      process.stdout.write(`sweep (turns, presence, lost runs, messages, idle sessions due): ${counts.join(' / ')} round trips for 1 / 10 / 100 of each\n`);
    }
  } finally {
    await store.close();
    await postgres.dropAll();
  }
}

void main();
