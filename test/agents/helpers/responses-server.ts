/**
 * A scripted model server speaking the OpenAI Responses API (POST /v1/responses, streamed as
 * server-sent events) for the real Codex CLI (a custom model provider in CODEX_HOME's config.toml).
 * The script answers the conversation it is sent: each step of a turn calls the next tool (a shell
 * command, through whichever shell tool the CLI offers), then the step after the last tool's output
 * closes with a text. Every request is kept for the test to read.
 */
import type { ServerResponse } from 'node:http';
import { startModelServer, type ModelServer } from './model-server.js';

export interface ScriptedCodexTurn {
  /** Shell commands run in order, one per step. */
  commands: string[];
  finalText: string;
  /** Each command asks to run outside the sandbox (exec_command's `sandbox_permissions: "require_escalated"`), which an approval policy that asks must approve. */
  escalate?: boolean;
}

export const SCRIPTED_CODEX_USAGE = { input_tokens: 150, input_tokens_details: { cached_tokens: 0 }, output_tokens: 25, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 175 } as const;

type Item = Record<string, unknown>;

/** Function-call outputs since the conversation's last user message: the step this request is. */
function outputsSinceLastUserMessage(input: Item[]): number {
  let count = 0;
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i]!;
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') count++;
    else if (item.type === 'message' && item.role === 'user') break;
  }
  return count;
}

/** The arguments a shell tool of this name takes for one command line (the tool names Codex versions offer). */
function shellCall(tools: Item[], command: string, escalate = false): { name: string; arguments: string } {
  const names = tools.map((t) => String(t.name ?? ''));
  if (escalate) {
    if (!names.includes('exec_command')) throw new Error(`no exec_command (the tool that takes sandbox_permissions) among ${names.join(', ')}`);
    return { name: 'exec_command', arguments: JSON.stringify({ cmd: command, sandbox_permissions: 'require_escalated', justification: `Run ${command}?` }) };
  }
  if (names.includes('shell_command')) return { name: 'shell_command', arguments: JSON.stringify({ command }) };
  if (names.includes('exec_command')) return { name: 'exec_command', arguments: JSON.stringify({ cmd: command }) };
  if (names.includes('shell')) return { name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', command] }) };
  throw new Error(`no shell tool among ${names.join(', ')}`);
}

function sse(res: ServerResponse, data: Record<string, unknown>): void {
  res.write(`event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`);
}

export async function startResponsesServer(turn: ScriptedCodexTurn): Promise<ModelServer> {
  let ids = 0;
  return startModelServer(({ method, path, body }, res, { requests, closedAt }) => {
    if (method !== 'POST' || !path.endsWith('/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no ${method} ${path} here` } }));
      return;
    }
    requests.push(body);
    const id = `resp_scripted_${++ids}`;
    const input = (Array.isArray(body.input) ? body.input : []) as Item[];
    const tools = (Array.isArray(body.tools) ? body.tools : []) as Item[];
    const step = outputsSinceLastUserMessage(input);
    // a request that offers no tools (the TUI's side requests) gets the closing text
    const command = tools.length > 0 ? turn.commands[step] : undefined;
    const item: Item = command !== undefined
      ? { type: 'function_call', id: `fc_scripted_${ids}`, call_id: `call_scripted_${ids}`, status: 'completed', ...shellCall(tools, command, turn.escalate) }
      : { type: 'message', id: `msg_scripted_${ids}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.finalText, annotations: [] }] };
    if (item.type === 'message') closedAt.push(Date.now());
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model, status: 'in_progress', output: [] as Item[] };
    sse(res, { type: 'response.created', response });
    sse(res, { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress' } });
    if (item.type === 'message') sse(res, { type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: turn.finalText });
    sse(res, { type: 'response.output_item.done', output_index: 0, item });
    sse(res, { type: 'response.completed', response: { ...response, status: 'completed', output: [item], usage: SCRIPTED_CODEX_USAGE } });
    res.end();
  });
}
