/**
 * Claude Code's own session file (`~/.claude/projects/<cwd>/<session id>.jsonl`, 2.1.x): one record
 * a line; `user` records carry a person's prompt (a string or text blocks) or tool results,
 * `assistant` records the model's blocks (text, tool_use) and the call's usage, one record per block
 * with the same message id (counted once). Side chains (subagents) and meta records are not turns.
 */
import type { JsonValue } from '../../shared/protocol/json.js';
import { addUsage, newTurn, type ParsedSession, type ParsedTool, type ParsedTurn } from './parsed-session.js';
import { numberAt, objectAt, stringAt, timeAt } from './transcript-file.js';

/** Prompts Claude Code writes for itself (slash commands' output, caveats), not a person's. */
const NOT_A_PROMPT = /^<(local-command-|command-name>|command-message>|local-command-caveat>)/;

function textOf(content: unknown[]): string {
  return content.filter((block) => stringAt(block, 'type') === 'text').map((block) => stringAt(block, 'text') ?? '').join('\n').trim();
}

export function readClaudeJsonl(records: readonly Record<string, unknown>[]): ParsedSession {
  const session: ParsedSession = { agentSessionId: null, cwd: null, startedAt: null, updatedAt: null, turns: [] };
  const tools = new Map<string, ParsedTool>();
  const counted = new Set<string>();
  let turn: ParsedTurn | undefined;
  for (const record of records) {
    const at = timeAt(record, 'timestamp');
    session.agentSessionId ??= stringAt(record, 'sessionId') ?? null;
    session.cwd ??= stringAt(record, 'cwd') ?? null;
    if (at !== undefined) {
      session.startedAt ??= at;
      session.updatedAt = at;
    }
    const type = stringAt(record, 'type');
    if ((type !== 'user' && type !== 'assistant') || record.isSidechain === true || record.isMeta === true || at === undefined) continue;
    const message = objectAt(record, 'message');
    const content = message?.content;
    if (type === 'user') {
      if (typeof content === 'string') {
        if (!NOT_A_PROMPT.test(content)) session.turns.push((turn = newTurn(content, at)));
        continue;
      }
      const blocks = Array.isArray(content) ? content : [];
      for (const block of blocks.filter((b) => stringAt(b, 'type') === 'tool_result')) {
        const tool = tools.get(stringAt(block, 'tool_use_id') ?? '');
        if (!tool) continue;
        const result = (block as Record<string, unknown>).content;
        tool.output = (typeof result === 'string' ? result : Array.isArray(result) ? textOf(result) : null) as JsonValue;
        if ((block as Record<string, unknown>).is_error === true) tool.status = 'failed';
      }
      const text = textOf(blocks);
      if (text !== '' && !blocks.some((b) => stringAt(b, 'type') === 'tool_result') && !NOT_A_PROMPT.test(text)) session.turns.push((turn = newTurn(text, at)));
      continue;
    }
    if (!turn) continue;
    turn.endedAt = at;
    for (const block of Array.isArray(content) ? content : []) {
      const kind = stringAt(block, 'type');
      if (kind === 'text' && (stringAt(block, 'text') ?? '').trim() !== '') turn.response = stringAt(block, 'text')!;
      if (kind === 'tool_use') {
        const tool: ParsedTool = { tool: stringAt(block, 'name') ?? 'tool', input: ((block as Record<string, unknown>).input ?? null) as JsonValue, at, status: 'done', ...(stringAt(block, 'id') ? { toolUseId: stringAt(block, 'id')! } : {}) };
        turn.tools.push(tool);
        if (tool.toolUseId) tools.set(tool.toolUseId, tool);
      }
    }
    const id = stringAt(message, 'id');
    const usage = objectAt(message, 'usage');
    const model = stringAt(message, 'model');
    if (usage && model && model !== '<synthetic>' && !(id && counted.has(id))) {
      if (id) counted.add(id);
      addUsage(turn, model, { input: numberAt(usage, 'input_tokens') ?? 0, output: numberAt(usage, 'output_tokens') ?? 0, cacheRead: numberAt(usage, 'cache_read_input_tokens') ?? 0, cacheWrite: numberAt(usage, 'cache_creation_input_tokens') ?? 0 });
    }
  }
  return session;
}
