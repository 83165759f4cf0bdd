/**
 * A scripted model server speaking the Gemini API (POST /v1beta/models/<model>:streamGenerateContent
 * ?alt=sse, server-sent events of GenerateContentResponse chunks) for the real Gemini CLI
 * (GOOGLE_GEMINI_BASE_URL with GEMINI_API_KEY). The script answers the conversation it is sent:
 * each step of a turn calls the next shell command (`run_shell_command`), then the step after the
 * last function response closes with a text. Non-streamed side calls (`:generateContent`) get the
 * closing text too. Every request is kept for the test to read.
 */
import { startModelServer, type ModelServer } from './model-server.js';

export interface ScriptedGeminiTurn {
  /** Shell commands run in order, one per step. */
  commands: string[];
  finalText: string;
}

/** Each response's usageMetadata (the Gemini API's field names). */
export const SCRIPTED_GEMINI_USAGE = { promptTokenCount: 140, candidatesTokenCount: 22, totalTokenCount: 162, cachedContentTokenCount: 0 } as const;

type Content = { role?: string; parts?: Record<string, unknown>[] };

/** Function responses since the conversation's last user text: the step this request is. */
function responsesSinceLastPrompt(contents: Content[]): number {
  let count = 0;
  for (let i = contents.length - 1; i >= 0; i--) {
    const parts = contents[i]!.parts ?? [];
    if (parts.some((p) => 'functionResponse' in p)) count++;
    else if (contents[i]!.role === 'user' && parts.some((p) => typeof p.text === 'string')) break;
  }
  return count;
}

function chunk(model: string, part: Record<string, unknown>): Record<string, unknown> {
  return { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }], usageMetadata: SCRIPTED_GEMINI_USAGE, modelVersion: model, responseId: `scripted-${Date.now()}` };
}

export async function startGeminiServer(turn: ScriptedGeminiTurn): Promise<ModelServer> {
  return startModelServer(({ method: verb, path, body }, res, { requests, closedAt }) => {
    const match = /^\/v1beta\/models\/([^:/]+):(streamGenerateContent|generateContent|countTokens)$/.exec(path);
    if (verb !== 'POST' || !match) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 404, message: `no ${verb} ${path} here`, status: 'NOT_FOUND' } }));
      return;
    }
    const [, model, method] = match as unknown as [string, string, string];
    if (method === 'countTokens') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ totalTokens: SCRIPTED_GEMINI_USAGE.promptTokenCount }));
      return;
    }
    requests.push(body);
    if (method === 'generateContent') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(chunk(model, { text: turn.finalText })));
      return;
    }
    const command = turn.commands[responsesSinceLastPrompt((body.contents ?? []) as Content[])];
    const part = command !== undefined ? { functionCall: { name: 'run_shell_command', args: { command } } } : { text: turn.finalText };
    if (command === undefined) closedAt.push(Date.now());
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(`data: ${JSON.stringify(chunk(model, part))}\r\n\r\n`);
  });
}
