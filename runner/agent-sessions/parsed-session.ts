/**
 * What a reader makes of a transcript, before the limits: the agent's own id, its directory, its
 * times and its turns. `session.ts` bounds it (texts, tools, turns) into what an import carries.
 */
import type { JsonValue } from '../../shared/protocol/json.js';
import type { UsageReport } from '../../shared/protocol/usage.js';

export interface ParsedTool {
  tool: string;
  toolUseId?: string;
  input: JsonValue;
  output?: JsonValue;
  at: number;
  status: 'done' | 'failed';
}

export interface ParsedTurn {
  prompt: string;
  at: number;
  endedAt: number;
  response: string | null;
  tools: ParsedTool[];
  /** Tokens per model, summed over the turn's model calls. */
  usage: Map<string, UsageReport>;
}

export interface ParsedSession {
  agentSessionId: string | null;
  cwd: string | null;
  startedAt: number | null;
  updatedAt: number | null;
  turns: ParsedTurn[];
}

export function newTurn(prompt: string, at: number): ParsedTurn {
  return { prompt, at, endedAt: at, response: null, tools: [], usage: new Map() };
}

/** Adds one model call's tokens to the turn's total for that model. */
export function addUsage(turn: ParsedTurn, model: string, call: { input: number; output: number; cacheRead: number; cacheWrite: number }): void {
  const was = turn.usage.get(model) ?? { model, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  turn.usage.set(model, {
    model,
    inputTokens: was.inputTokens + call.input,
    outputTokens: was.outputTokens + call.output,
    cacheReadTokens: (was.cacheReadTokens ?? 0) + call.cacheRead,
    cacheWriteTokens: (was.cacheWriteTokens ?? 0) + call.cacheWrite,
  });
}
