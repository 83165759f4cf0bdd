/**
 * The page's pure helpers for attention (hub/dashboard/attention.js) and usage (hub/dashboard/usage.js):
 * every attention kind the protocol defines has plain words; a model without a price is never given
 * a number; per-model sums over turns keep "no price" when one turn had none.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DECIDING_ROLES, RoleSchema } from '../../shared/protocol/auth.js';
import { AttentionKindSchema } from '../../shared/protocol/session.js';
import type { ModelUsage, UsageTotals } from '../../shared/protocol/usage.js';

const DASHBOARD = join(import.meta.dirname, '..', '..', 'hub', 'dashboard');
// plain JS under the page's CSP: loaded by URL (the TS project does not type-check the page)
const attention = (await import(pathToFileURL(join(DASHBOARD, 'attention.js')).href)) as {
  sayAttention(a: { kind: string; tool: string | null }): string;
  needingYou<T extends { sid: string; activity: string; attention: { kind: string; since: number } | null }>(sessions: T[]): T[];
  readySessions<T extends { sid: string; activity: string; attention: { kind: string; since: number } | null }>(sessions: T[]): T[];
  pageTitle(count: number): string;
  attentionKey(s: { sid: string; attention: { kind: string; since: number } | null }): string | null;
};
const usage = (await import(pathToFileURL(join(DASHBOARD, 'usage.js')).href)) as {
  sayCost(totals: UsageTotals): string;
  usageByModel(turns: { usage?: ModelUsage[] }[]): ModelUsage[];
  formatTokens(n: number): string;
};

const format = (await import(pathToFileURL(join(DASHBOARD, 'durations.js')).href)) as {
  waitingFor(ms: number): string;
};
const agentVersion = (await import(pathToFileURL(join(DASHBOARD, 'agent-version.js')).href)) as { versionNumber(printed: string): string };

const totals = (over: Partial<UsageTotals>): UsageTotals => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: null, unpricedTokens: 0, ...over });
const model = (name: string, inputTokens: number, costUsd: number | null): ModelUsage => ({ model: name, inputTokens, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd });

describe('attention words', () => {
  it('say how long a session waits on a person in seconds and up, never "0 ms" (a wait that just began, or a clock a little ahead)', () => {
    expect(format.waitingFor(0)).toBe('waiting since just now');
    expect(format.waitingFor(999)).toBe('waiting since just now');
    expect(format.waitingFor(-40)).toBe('waiting since just now');
    expect(format.waitingFor(12_000)).toBe('waiting 12 s');
    expect(format.waitingFor(185_000)).toBe('waiting 3 min 5 s');
  });

  const WORDS: Record<string, string> = {
    permission: 'wants approval to run Bash',
    question: 'asks you something',
    done: 'finished',
    failed: 'stopped on an error',
    retrying: 'hit an error and keeps retrying',
  };
  it.each(AttentionKindSchema.options)('says %s in plain words', (kind) => {
    expect(attention.sayAttention({ kind, tool: 'Bash' })).toBe(WORDS[kind]);
  });

  it('names the tool that wants approval', () => {
    expect(attention.sayAttention({ kind: 'permission', tool: 'Bash' })).toBe('wants approval to run Bash');
    expect(attention.sayAttention({ kind: 'permission', tool: null })).toBe('wants approval to run a tool');
  });

  it('orders the longest waiting first and counts them in the title; a finished turn is ready, not waiting', () => {
    const list = [
      { sid: 'b', activity: 'waiting', attention: { kind: 'question', since: 20 } },
      { sid: 'a', activity: 'idle', attention: null },
      { sid: 'c', activity: 'waiting', attention: { kind: 'question', since: 10 } },
      { sid: 'p', activity: 'waiting', attention: { kind: 'permission', since: 30 } },
      { sid: 'd', activity: 'idle', attention: { kind: 'done', since: 5 } },
      { sid: 'f', activity: 'working', attention: { kind: 'failed', since: 7 } },
    ];
    expect(attention.needingYou(list).map((s) => s.sid)).toEqual(['p', 'c', 'b']);
    expect(attention.readySessions(list).map((s) => s.sid)).toEqual(['f', 'd']);
    expect(attention.pageTitle(2)).toBe('(2) Session Hub');
    expect(attention.pageTitle(0)).toBe('Session Hub');
  });

  it('keys a notification by the attention change', () => {
    expect(attention.attentionKey({ sid: 's', attention: null })).toBeNull();
    const first = attention.attentionKey({ sid: 's', attention: { kind: 'done', since: 1 } });
    expect(attention.attentionKey({ sid: 's', attention: { kind: 'done', since: 2 } })).not.toBe(first);
    expect(attention.attentionKey({ sid: 's', attention: { kind: 'done', since: 1 } })).toBe(first);
  });
});

describe('cost words', () => {
  it('never guesses a price', () => {
    expect(usage.sayCost(totals({}))).toBe('');
    expect(usage.sayCost(totals({ inputTokens: 500, unpricedTokens: 500 }))).toBe('no price known');
    expect(usage.sayCost(totals({ inputTokens: 100, costUsd: 1.2 }))).toBe('$1.20');
    // under a cent: one significant digit, so small sessions still differ (issue 34)
    expect(usage.sayCost(totals({ inputTokens: 100, costUsd: 0.001 }))).toBe('$0.001');
    expect(usage.sayCost(totals({ inputTokens: 100, costUsd: 0.0042 }))).toBe('$0.004');
    expect(usage.sayCost(totals({ inputTokens: 100, costUsd: 0.00047 }))).toBe('$0.0005');
    expect(usage.sayCost(totals({ inputTokens: 100, costUsd: 0.0096 }))).toBe('$0.01');
    expect(usage.sayCost(totals({ inputTokens: 100, costUsd: 0.0000001 }))).toBe('<$0.000001');
    expect(usage.sayCost(totals({ inputTokens: 20_000, costUsd: 0.5, unpricedTokens: 12_000 }))).toBe('$0.50 + 12k tokens with no price known');
  });

  it('sums per model over turns, most tokens first, and keeps a model unpriced if one turn was', () => {
    const byModel = usage.usageByModel([
      { usage: [model('sonnet', 100, 0.3), model('local', 10, null)] },
      { usage: [model('sonnet', 200, 0.6), model('local', 10, null)] },
      {},
    ]);
    expect(byModel.map((m) => [m.model, m.inputTokens, m.costUsd])).toEqual([
      ['sonnet', 300, expect.closeTo(0.9, 10)],
      ['local', 20, null],
    ]);
  });
});

describe('machine words', () => {
  it('an agent CLI\'s version is its number, as the real CLIs print it; a line without one stays whole', () => {
    expect(agentVersion.versionNumber('2.1.197 (Claude Code)')).toBe('2.1.197');
    expect(agentVersion.versionNumber('codex-cli 0.169.0')).toBe('0.169.0');
    expect(agentVersion.versionNumber('0.61.0-nightly.20261101')).toBe('0.61.0-nightly.20261101');
    expect(agentVersion.versionNumber('dev build')).toBe('dev build');
  });
});

describe('roles on the page', () => {
  it('the page lets exactly the roles the hub lets decide (approvals, messages, machines) act', async () => {
    const { mayDecide } = (await import(pathToFileURL(join(DASHBOARD, 'auth.js')).href)) as { mayDecide(role: string | null): boolean };
    for (const role of RoleSchema.options) expect(mayDecide(role), role).toBe(DECIDING_ROLES.includes(role));
    expect(mayDecide(null)).toBe(false);
  });
});
