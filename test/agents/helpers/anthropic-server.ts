/**
 * A scripted model server speaking the Anthropic Messages API (POST /v1/messages, streamed as
 * server-sent events when asked) for the real Claude Code CLI (ANTHROPIC_BASE_URL). The script
 * answers the conversation it is sent: the first assistant step of a turn calls a tool, the step
 * after that tool's result closes with a text. Requests that carry no tools (Claude Code's side
 * calls: titles, summaries) get a short text. Every request is kept for the test to read.
 */
import type { ServerResponse } from 'node:http';
import { startModelServer, type ModelServer } from './model-server.js';

export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
  /** A text the model writes before the call, in the same message (the agent's words between tool calls). */
  say?: string;
}

/** One turn: tools called in order (one per step), then the closing text; or every request answered with an API error. */
export interface ScriptedTurn {
  tools: ToolCall[];
  finalText: string;
  apiError?: { status: number; type: string; message: string };
  /** Awaited before a request with tools is answered: a test holds the model's answer until it let it go. */
  hold?: (body: Record<string, unknown>) => Promise<void>;
}


type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };
type Message = { role: string; content: unknown };

export const SCRIPTED_USAGE = { input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } as const;

/** How many tool results the conversation's latest user turn has collected so far (each step answers one tool). */
function toolResultsSinceLastPrompt(messages: Message[]): number {
  let count = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'user') continue;
    const blocks = Array.isArray(message.content) ? (message.content as { type?: string }[]) : [];
    const results = blocks.filter((b) => b.type === 'tool_result').length;
    if (results === 0) break;
    count += results;
  }
  return count;
}

export function replyFor(body: Record<string, unknown>, turn: ScriptedTurn, idOf: () => string): Block[] {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as Message[];
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  if (!hasTools) return [{ type: 'text', text: 'Scripted side answer.' }];
  const step = toolResultsSinceLastPrompt(messages);
  const tool = turn.tools[step];
  if (tool) return [...(tool.say === undefined ? [] : [{ type: 'text' as const, text: tool.say }]), { type: 'tool_use', id: idOf(), name: tool.name, input: tool.input }];
  return [{ type: 'text', text: turn.finalText }];
}

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function stream(res: ServerResponse, id: string, model: string, blocks: Block[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const stopReason = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  sse(res, 'message_start', {
    type: 'message_start',
    message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...SCRIPTED_USAGE, output_tokens: 1 } },
  });
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    } else {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: SCRIPTED_USAGE.output_tokens } });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

export async function startAnthropicServer(turn: ScriptedTurn): Promise<ModelServer> {
  let ids = 0;
  return startModelServer(async ({ method, path, body }, res, { requests, closedAt }) => {
    if (method === 'POST' && path === '/v1/messages/count_tokens') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 100 }));
      return;
    }
    if (method !== 'POST' || path !== '/v1/messages') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no ${method} ${path} here` } }));
      return;
    }
    requests.push(body);
    if (turn.apiError) {
      res.writeHead(turn.apiError.status, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: turn.apiError.type, message: turn.apiError.message } }));
      return;
    }
    if (turn.hold && Array.isArray(body.tools) && body.tools.length > 0) await turn.hold(body);
    const model = typeof body.model === 'string' ? body.model : 'claude-sonnet-4-5';
    const id = `msg_scripted_${++ids}`;
    const blocks = replyFor(body, turn, () => `toolu_scripted_${ids}`);
    if (blocks.some((b) => b.type === 'text' && b.text === turn.finalText)) closedAt.push(Date.now());
    if (body.stream === true) return stream(res, id, model, blocks);
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn', stop_sequence: null, usage: SCRIPTED_USAGE }),
    );
  });
}
