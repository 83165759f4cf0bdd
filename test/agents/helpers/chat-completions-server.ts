/**
 * A scripted model server speaking the OpenAI Chat Completions API (POST /v1/chat/completions,
 * streamed as server-sent events, usage in a last chunk) for the real OpenCode CLI (a custom
 * provider in opencode.json: `@ai-sdk/openai-compatible` with `options.baseURL`). The script answers
 * the conversation it is sent: each step of a turn calls the next shell command (the `bash` tool),
 * the step after the last tool result closes with a text. Requests that offer no tools (OpenCode's
 * title generator) get the closing text. Every request is kept for the test to read.
 */
import { startModelServer, type ModelServer } from './model-server.js';

export interface ScriptedChatTurn {
  /** Shell commands run in order, one per step. */
  commands: string[];
  finalText: string;
}

export const SCRIPTED_CHAT_USAGE = { prompt_tokens: 130, completion_tokens: 21, total_tokens: 151 } as const;

type Message = { role?: string; content?: unknown };

/** Tool results since the conversation's last user message: the step this request is. */
function toolResultsSinceLastUser(messages: Message[]): number {
  let count = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'tool') count++;
    else if (messages[i]!.role === 'user') break;
  }
  return count;
}

export async function startChatCompletionsServer(turn: ScriptedChatTurn): Promise<ModelServer> {
  let ids = 0;
  return startModelServer(({ method, path, body }, res, { requests, closedAt }) => {
    if (method !== 'POST' || path !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no ${method} ${path} here` } }));
      return;
    }
    requests.push(body);
    const id = `chatcmpl-scripted-${++ids}`;
    const tools = (Array.isArray(body.tools) ? body.tools : []) as { function?: { name?: string } }[];
    const offersShell = tools.some((t) => t.function?.name === 'bash');
    const command = offersShell ? turn.commands[toolResultsSinceLastUser((body.messages ?? []) as Message[])] : undefined;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model };
    const send = (fields: Record<string, unknown>) => res.write(`data: ${JSON.stringify({ ...base, ...fields })}\n\n`);
    if (command !== undefined) {
      const call = { index: 0, id: `call_scripted_${ids}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command, description: 'Run the scripted command' }) } };
      send({ choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [call] }, finish_reason: null }] });
      send({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
    } else {
      if (offersShell) closedAt.push(Date.now());
      send({ choices: [{ index: 0, delta: { role: 'assistant', content: turn.finalText }, finish_reason: null }] });
      send({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    }
    send({ choices: [], usage: SCRIPTED_CHAT_USAGE });
    res.end('data: [DONE]\n\n');
  });
}
