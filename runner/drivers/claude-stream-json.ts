/**
 * Claude Code headless: `claude -p --input-format stream-json --output-format stream-json --verbose`,
 * one live process taking several user messages on stdin (one JSON a line) and writing its
 * messages on stdout (system/init with its session_id, assistant and user messages with tool_use
 * and tool_result blocks, one `result` per turn with usage). The control protocol of the Agent SDK
 * (control_request / control_response) carries interrupts and, with `--permission-prompt-tool
 * stdio`, each tool permission as `can_use_tool` (AskUserQuestion included: allowed with
 * `updatedInput` holding its `answers`). The session id is chosen up front (`--session-id`) or
 * resumed (`--resume`), and is the resume token.
 */
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { UsageReport } from '../../shared/protocol/usage.js';
import { spawnAgentProcess } from '../process-tree.js';
import type { AgentDriver, DriverEvents, DriverStart, DriverFactory } from './driver.js';

type Json = Record<string, unknown>;

/** Claude Code's answer to `--resume <id>` it does not know (2.1.x: "No conversation found with session ID: <id>"). */
const RESUME_REJECTED = /No conversation found/i;

/**
 * Every value attached to its option (`--resume=<id>`): `--resume` takes an optional value, so a
 * separate argument starting with `-` would be read as another option (issue 45).
 */
function argsFor(start: DriverStart, sessionId: string): string[] {
  const args = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--permission-prompt-tool', 'stdio'];
  args.push(start.resumeToken ? `--resume=${start.resumeToken}` : `--session-id=${sessionId}`);
  if (start.permissionMode) args.push(`--permission-mode=${start.permissionMode}`);
  if (start.model) args.push(`--model=${start.model}`);
  return args;
}

function usageOf(result: Json): UsageReport[] {
  const byModel = result.modelUsage;
  if (byModel && typeof byModel === 'object') {
    const reports = Object.entries(byModel as Record<string, Json>).map(([model, u]) => ({
      model,
      inputTokens: Number(u.inputTokens ?? 0),
      outputTokens: Number(u.outputTokens ?? 0),
      cacheReadTokens: Number(u.cacheReadInputTokens ?? 0),
      cacheWriteTokens: Number(u.cacheCreationInputTokens ?? 0),
    }));
    if (reports.length > 0) return reports;
  }
  return [];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (b && typeof b === 'object' && typeof (b as Json).text === 'string' ? (b as Json).text : '')).join('');
  return '';
}

/** Claude Code's `api_retry` line in its own terms: "API request failed (HTTP 529: overloaded_error); retry 3 of 10". */
function apiRetryWords(line: Json): string {
  const status = typeof line.error_status === 'number' ? `HTTP ${line.error_status}` : 'no answer from the API';
  const error = typeof line.error === 'string' && line.error !== 'unknown' ? `: ${line.error}` : '';
  const attempt = typeof line.attempt === 'number' && typeof line.max_retries === 'number' ? `; retry ${line.attempt} of ${line.max_retries}` : '';
  return `API request failed (${status}${error})${attempt}`;
}

export const startClaudeStreamJson: DriverFactory = (start, events) => {
  const sessionId = start.resumeToken ?? randomUUID();
  const agent = spawnAgentProcess(start.command, argsFor(start, sessionId), { cwd: start.cwd, env: start.env });
  const pendingTools = new Map<string, { tool: string; input: unknown; startedAt: number }>();
  const pendingControl = new Map<string, () => void>();
  /** Prompts sent while a turn runs: Claude Code takes each as the next turn's input. */
  const queued: string[] = [];
  let turnOpen = false;
  let emitted = false;
  let lastText: string | null = null;
  let interrupted = false;
  let reportedId: string | null = sessionId;

  const write = (message: Json) => {
    if (agent.child.stdin.writable) agent.child.stdin.write(`${JSON.stringify(message)}\n`);
  };
  const reportId = (id: unknown) => {
    if (typeof id === 'string' && id !== reportedId) {
      reportedId = id;
      events.sessionId(id);
    }
  };
  const openTurn = (prompt: string) => {
    turnOpen = true;
    interrupted = false;
    lastText = null;
    events.turnStart(prompt);
  };

  const onControlRequest = async (message: Json) => {
    const requestId = String(message.request_id);
    const request = (message.request ?? {}) as Json;
    if (request.subtype !== 'can_use_tool') {
      write({ type: 'control_response', response: { subtype: 'error', request_id: requestId, error: `unsupported control request ${String(request.subtype)}` } });
      return;
    }
    const input = (request.input ?? {}) as Json;
    const decision = await events.approval({ tool: String(request.tool_name), toolUseId: typeof request.tool_use_id === 'string' ? request.tool_use_id : null, input });
    const response = decision.allow
      ? { behavior: 'allow', updatedInput: decision.answers ? { ...input, answers: decision.answers } : input }
      : { behavior: 'deny', message: decision.message ?? 'Denied from Session Hub' };
    write({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response } });
  };

  const onMessage = (message: Json) => {
    switch (message.type) {
      case 'system':
        reportId(message.session_id);
        // an API call that failed and will be retried (model unreachable, overloaded, rate limited)
        if (message.subtype === 'api_retry') events.retrying(apiRetryWords(message));
        return;
      case 'assistant': {
        emitted = true;
        reportId(message.session_id);
        for (const block of ((message.message as Json | undefined)?.content as Json[] | undefined) ?? []) {
          if (block.type === 'tool_use') pendingTools.set(String(block.id), { tool: String(block.name), input: block.input, startedAt: Date.now() });
          if (block.type === 'text' && typeof block.text === 'string') lastText = block.text;
        }
        return;
      }
      case 'user': {
        for (const block of ((message.message as Json | undefined)?.content as Json[] | undefined) ?? []) {
          if (block.type !== 'tool_result') continue;
          const id = String(block.tool_use_id);
          const call = pendingTools.get(id);
          pendingTools.delete(id);
          events.toolUse({ tool: call?.tool ?? 'unknown', toolUseId: id, input: call?.input ?? null, output: textOf(block.content), ...(call ? { startedAt: call.startedAt } : {}), ...(block.is_error === true ? { failed: true } : {}) });
        }
        return;
      }
      case 'result': {
        reportId(message.session_id);
        const usage = usageOf(message);
        if (usage.length > 0) events.usage(usage);
        const response = typeof message.result === 'string' ? message.result : lastText;
        const status = interrupted ? 'aborted' : message.is_error === true ? 'error' : 'completed';
        turnOpen = false;
        events.turnStop({ status, response, ...(status === 'error' ? { error: response ?? `Claude Code ended the turn on an error (${String(message.subtype)})` } : {}) });
        const next = queued.shift();
        if (next !== undefined) openTurn(next);
        return;
      }
      case 'control_request':
        void onControlRequest(message);
        return;
      case 'control_response': {
        const response = (message.response ?? {}) as Json;
        pendingControl.get(String(response.request_id))?.();
        pendingControl.delete(String(response.request_id));
        return;
      }
      default:
    }
  };

  createInterface({ input: agent.child.stdout }).on('line', (line) => {
    if (!line.trim().startsWith('{')) return;
    try {
      onMessage(JSON.parse(line) as Json);
    } catch {
      // a line that is not JSON: not ours to read
    }
  });

  void agent.exited.then(({ code, signal }) => {
    const stderr = agent.stderrTail();
    for (const settle of pendingControl.values()) settle();
    if (start.resumeToken && !emitted && RESUME_REJECTED.test(stderr)) events.resumeRejected(stderr);
    if (turnOpen) {
      turnOpen = false;
      events.turnStop({ status: 'aborted', response: lastText });
    }
    events.exit({ code, signal, stderr });
  });

  const driver: AgentDriver = {
    get pid() {
      return agent.child.pid;
    },
    initialSessionId: sessionId,
    send(prompt) {
      write({ type: 'user', message: { role: 'user', content: prompt }, parent_tool_use_id: null, session_id: reportedId ?? sessionId });
      if (turnOpen) queued.push(prompt);
      else openTurn(prompt);
    },
    interrupt() {
      if (!turnOpen) return Promise.resolve();
      interrupted = true;
      const requestId = `interrupt-${randomUUID()}`;
      return new Promise<void>((resolve) => {
        pendingControl.set(requestId, resolve);
        write({ type: 'control_request', request_id: requestId, request: { subtype: 'interrupt' } });
      });
    },
    stop: (killAfterMs) => agent.stop(killAfterMs),
  };
  return driver;
};
