/**
 * Codex headless: `codex app-server`, JSON-RPC over stdio (one JSON a line, without the `jsonrpc`
 * field), as its protocol crate defines it (openai/codex codex-rs/app-server-protocol, v2; checked
 * against `codex app-server generate-ts` of the pinned 0.169.0). `initialize`, then `thread/start`
 * or `thread/resume` (the thread id is the resume token), one `turn/start` per prompt, `turn/interrupt`;
 * the server streams `item/started` / `item/completed` (commands, file changes, MCP tools, agent
 * messages), `thread/tokenUsage/updated` and `turn/completed`, and asks for approvals as requests of
 * its own (`item/commandExecution/requestApproval`, `item/fileChange/requestApproval`) that wait on
 * our answer. A resume of a thread it does not know fails as the `thread/resume` error.
 */
import type { PermissionMode } from '../../shared/protocol/machines.js';
import type { UsageReport } from '../../shared/protocol/usage.js';
import { spawnAgentProcess } from '../process-tree.js';
import type { AgentDriver, ApprovalRequest, DriverFactory, TurnEnd } from './driver.js';

type Json = Record<string, unknown>;

/**
 * Our permission modes as Codex's approval policy and sandbox (docs/runner.md): `default` asks
 * before any command Codex does not know to be read-only; `acceptEdits` works inside the project's
 * sandbox and asks only to leave it; `plan` reads only; bypass asks nothing and has no sandbox.
 */
const POLICY: Record<PermissionMode, { approvalPolicy: string; sandbox: string }> = {
  default: { approvalPolicy: 'untrusted', sandbox: 'workspace-write' },
  acceptEdits: { approvalPolicy: 'on-request', sandbox: 'workspace-write' },
  plan: { approvalPolicy: 'on-request', sandbox: 'read-only' },
  bypassPermissions: { approvalPolicy: 'never', sandbox: 'danger-full-access' },
};

const TURN_STATUS: Record<string, TurnEnd['status']> = { completed: 'completed', interrupted: 'aborted', failed: 'error' };

/** Codex's token counts (input includes the cached part) as a usage report (input less cached). */
interface Tokens {
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteInputTokens: number;
  outputTokens: number;
}
const ZERO: Tokens = { inputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 0 };
function tokensOf(value: unknown): Tokens {
  const t = (value ?? {}) as Json;
  const n = (key: string) => (typeof t[key] === 'number' ? (t[key] as number) : 0);
  return { inputTokens: n('inputTokens'), cachedInputTokens: n('cachedInputTokens'), cacheWriteInputTokens: n('cacheWriteInputTokens'), outputTokens: n('outputTokens') };
}
function turnUsage(model: string, now: Tokens, atStart: Tokens): UsageReport[] {
  const d = (key: keyof Tokens) => Math.max(0, now[key] - atStart[key]);
  if (d('inputTokens') + d('outputTokens') === 0) return [];
  const cached = Math.min(d('cachedInputTokens'), d('inputTokens'));
  return [{ model, inputTokens: d('inputTokens') - cached, outputTokens: d('outputTokens'), cacheReadTokens: cached, cacheWriteTokens: d('cacheWriteInputTokens') }];
}

/** A thread item that is a tool call, as the hub's tool use (names as Codex's hooks give them: Bash, apply_patch, mcp__server__tool). */
function toolOf(item: Json): { tool: string; input: unknown; output?: unknown } | null {
  switch (item.type) {
    case 'commandExecution':
      return { tool: 'Bash', input: { command: item.command, cwd: item.cwd }, ...(item.aggregatedOutput != null ? { output: item.aggregatedOutput } : {}) };
    case 'fileChange':
      return { tool: 'apply_patch', input: { changes: item.changes }, output: { status: item.status } };
    case 'mcpToolCall':
      return { tool: `mcp__${String(item.server)}__${String(item.tool)}`, input: item.arguments ?? null, ...(item.result != null || item.error != null ? { output: item.result ?? item.error } : {}) };
    default:
      return null;
  }
}

/** A Codex TurnError (`{ message, additionalDetails }`) in its own words, or undefined when it has none. */
function errorWords(value: unknown): string | undefined {
  const error = (value ?? {}) as Json;
  const message = typeof error.message === 'string' ? error.message.trim() : '';
  const details = typeof error.additionalDetails === 'string' ? error.additionalDetails.trim() : '';
  const said = [message, details].filter(Boolean).join(': ');
  return said || undefined;
}

export const startCodexAppServer: DriverFactory = (start, events) => {
  const agent = spawnAgentProcess(start.command, ['app-server'], { cwd: start.cwd, env: start.env });
  const policy = POLICY[start.permissionMode ?? 'default'];
  const pending = new Map<number, { resolve: (result: Json) => void; reject: (error: Error) => void }>();
  const items = new Map<string, Json>();
  /** When each item started: a tool's report carries it, so its duration is its own. */
  const startedAt = new Map<string, number>();
  /** Prompts given before the thread is ready or while a turn runs: each starts the next turn. */
  const queued: string[] = [];
  let nextId = 1;
  let threadId: string | null = null;
  let model = start.model ?? 'unknown';
  let turnId: string | null = null;
  let turnOpen = false;
  let lastText: string | null = null;
  let usageNow: Tokens = ZERO;
  let usageAtTurnStart: Tokens = ZERO;

  const write = (message: Json) => {
    if (agent.child.stdin.writable) agent.child.stdin.write(`${JSON.stringify(message)}\n`);
  };
  const request = (method: string, params: Json): Promise<Json> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      write({ id, method, params });
    });

  const startTurn = (prompt: string) => {
    turnOpen = true;
    turnId = null;
    lastText = null;
    usageAtTurnStart = usageNow;
    events.turnStart(prompt);
    request('turn/start', { threadId, input: [{ type: 'text', text: prompt, text_elements: [] }] }).then(
      (result) => (turnId ??= String(((result.turn ?? {}) as Json).id)),
      (error: Error) => endTurn({ status: 'error', response: error.message }),
    );
  };
  const endTurn = (end: TurnEnd) => {
    if (!turnOpen) return;
    turnOpen = false;
    turnId = null;
    const usage = turnUsage(model, usageNow, usageAtTurnStart);
    if (usage.length > 0) events.usage(usage);
    events.turnStop(end);
    const next = queued.shift();
    if (next !== undefined) startTurn(next);
  };

  const answerApproval = async (id: unknown, method: string, params: Json) => {
    const itemId = typeof params.itemId === 'string' ? params.itemId : null;
    const item = itemId ? items.get(itemId) : undefined;
    const reason = typeof params.reason === 'string' ? { reason: params.reason } : {};
    const ask: ApprovalRequest =
      method === 'item/commandExecution/requestApproval'
        ? { tool: 'Bash', toolUseId: itemId, input: { command: params.command ?? item?.command ?? null, cwd: params.cwd ?? item?.cwd ?? start.cwd, ...reason } }
        : { tool: 'apply_patch', toolUseId: itemId, input: { changes: item?.changes ?? [], ...reason } };
    const decision = await events.approval(ask);
    write({ id, result: { decision: decision.allow ? 'accept' : 'decline' } });
  };

  const onServerRequest = (id: unknown, method: string, params: Json) => {
    if (method === 'item/commandExecution/requestApproval' || method === 'item/fileChange/requestApproval') {
      void answerApproval(id, method, params);
      return;
    }
    // user input, MCP elicitations, permission profiles, dynamic tools: not offered through the runner
    write({ id, error: { code: -32601, message: `session-hub runner does not answer ${method}` } });
  };

  const onNotification = (method: string, params: Json) => {
    switch (method) {
      case 'turn/started':
        turnId ??= String(((params.turn ?? {}) as Json).id);
        return;
      case 'item/started': {
        const item = (params.item ?? {}) as Json;
        if (typeof item.id === 'string') {
          items.set(item.id, item);
          startedAt.set(item.id, Date.now());
        }
        return;
      }
      case 'item/completed': {
        const item = (params.item ?? {}) as Json;
        const began = typeof item.id === 'string' ? startedAt.get(item.id) : undefined;
        if (typeof item.id === 'string') {
          items.delete(item.id);
          startedAt.delete(item.id);
        }
        if (item.type === 'agentMessage' && typeof item.text === 'string') lastText = item.text;
        const tool = toolOf(item);
        // a command that failed or was declined, a patch or MCP call that failed: not "done"
        const failed = item.status === 'failed' || item.status === 'declined';
        if (tool) events.toolUse({ ...tool, toolUseId: String(item.id), ...(began !== undefined ? { startedAt: began } : {}), ...(failed ? { failed: true } : {}) });
        return;
      }
      case 'thread/tokenUsage/updated':
        usageNow = tokensOf(((params.tokenUsage ?? {}) as Json).total);
        return;
      case 'error': {
        // Codex retries a model it cannot reach without end ("Reconnecting... waiting for network"):
        // the person hears it as it happens; a final one fails the turn (turn/completed follows)
        const said = errorWords(params.error);
        if (params.willRetry === true && said) events.retrying(said);
        return;
      }
      case 'turn/completed': {
        const turn = (params.turn ?? {}) as Json;
        const status = TURN_STATUS[String(turn.status)] ?? 'error';
        const error = status === 'error' ? (errorWords(turn.error) ?? 'Codex ended the turn on an error it did not name') : undefined;
        endTurn({ status, response: lastText ?? error ?? null, ...(error ? { error } : {}) });
        return;
      }
      default:
    }
  };

  const onMessage = (message: Json) => {
    const hasId = message.id !== undefined && message.id !== null;
    if (typeof message.method === 'string') {
      if (hasId) onServerRequest(message.id, message.method, (message.params ?? {}) as Json);
      else onNotification(message.method, (message.params ?? {}) as Json);
      return;
    }
    if (!hasId) return;
    const waiter = pending.get(Number(message.id));
    pending.delete(Number(message.id));
    if (!waiter) return;
    if (message.error) waiter.reject(new Error(String(((message.error as Json).message as string | undefined) ?? JSON.stringify(message.error))));
    else waiter.resolve((message.result ?? {}) as Json);
  };

  const open = async () => {
    await request('initialize', { clientInfo: { name: 'session_hub_runner', title: 'Session Hub runner', version: '1' }, capabilities: null });
    write({ method: 'initialized' });
    const settings = { cwd: start.cwd, approvalPolicy: policy.approvalPolicy, sandbox: policy.sandbox, ...(start.model ? { model: start.model } : {}) };
    let opened: Json;
    if (start.resumeToken) {
      try {
        opened = await request('thread/resume', { threadId: start.resumeToken, ...settings });
      } catch (error) {
        // the thread is gone (or never was): the runner reports resume-failed once the agent exited
        events.resumeRejected(error instanceof Error ? error.message : String(error));
        await agent.stop(2_000);
        return;
      }
    } else {
      opened = await request('thread/start', settings);
    }
    if (typeof opened.model === 'string') model = opened.model;
    threadId = String(((opened.thread ?? {}) as Json).id);
    events.sessionId(threadId);
    const first = queued.shift();
    if (first !== undefined) startTurn(first);
  };
  open().catch(() => void agent.stop(2_000));

  let buffered = '';
  agent.child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (!line.startsWith('{')) continue;
      try {
        onMessage(JSON.parse(line) as Json);
      } catch {
        // a line that is not JSON: not ours to read
      }
    }
  });

  void agent.exited.then(({ code, signal }) => {
    for (const waiter of pending.values()) waiter.reject(new Error('codex app-server exited'));
    pending.clear();
    queued.length = 0;
    endTurn({ status: 'aborted', response: lastText });
    events.exit({ code, signal, stderr: agent.stderrTail() });
  });

  const driver: AgentDriver = {
    get pid() {
      return agent.child.pid;
    },
    initialSessionId: start.resumeToken ?? null,
    send(prompt) {
      if (threadId === null || turnOpen) queued.push(prompt);
      else startTurn(prompt);
    },
    async interrupt() {
      if (!turnOpen || threadId === null) return;
      // the turn's id comes with turn/start's answer; an interrupt right after a send waits for it
      for (let i = 0; turnId === null && turnOpen && i < 100; i++) await new Promise((r) => setTimeout(r, 50));
      if (!turnOpen || turnId === null) return;
      await request('turn/interrupt', { threadId, turnId }).catch(() => undefined);
    },
    stop: (killAfterMs) => agent.stop(killAfterMs),
  };
  return driver;
};
