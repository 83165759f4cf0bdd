/**
 * The plugin file `hook install` writes for an agent that loads JavaScript plugins instead of
 * running hook commands (OpenCode: opencode.ai/docs/plugins, `.opencode/plugins/*.js`). The plugin
 * turns each plugin hook it listens to into one flat JSON payload, named as the flavor's registry
 * entry reads it (Claude Code's field names), and runs the bridge command with it on stdin, one at a
 * time in the order they came (the spool's seq is taken in arrival order), never making the agent
 * wait. Which hooks it listens to is the flavor's `hooks` list: nothing here names a flavor. At a
 * message hook (the registry's `messageHooks`), the bridge prints the person's queued texts; the
 * plugin sends them to the session with the SDK client OpenCode hands plugins
 * (`client.session.prompt({ path: { id }, body: { parts: [{ type: 'text', text }] } })`, opencode.ai/docs/sdk).
 */
import type { FlavorDeclaration } from '../../shared/flavors.js';

/** Marks a file as written by install: another file of the same name is the user's and is never replaced. */
export const PLUGIN_MARKER = '// session-hub hook plugin';

/**
 * The plugin source. Payload shapes, from OpenCode's plugin API (packages/plugin/src/index.ts):
 * `event({ event })` with `event.type` and `event.properties` (session.created/deleted:
 * `properties.info.id`; session.idle: `properties.sessionID`); `chat.message(input { sessionID },
 * output { message, parts })`, the prompt being its text parts; `tool.execute.before(input { tool,
 * sessionID, callID }, output { args })`; `tool.execute.after(input, output { title, output, metadata })`.
 * The closing message and the usage of a turn come from the events before its `session.idle`
 * (recorded from OpenCode 1.18.33, test/agents/opencode-run.test.ts): `message.updated` with
 * `properties.info { id, sessionID, role: 'assistant', modelID, tokens { input, output, reasoning,
 * cache { read, write } } }` (repeated as it grows: the last one counts), and `message.part.updated`
 * with `properties.part { type: 'text', text, messageID, sessionID }`.
 */
export function opencodePlugin(flavor: FlavorDeclaration, argv: readonly string[]): string {
  const listened = Object.keys(flavor.hooks);
  const usageField = flavor.payloadUsage?.field ?? null;
  const messageFields = Object.fromEntries(Object.entries(flavor.hookConfig?.messageHooks ?? {}).map(([hook, output]) => [hook, output.textField]));
  return `${PLUGIN_MARKER} for ${flavor.displayName} (session-hub hook install ${flavor.id}): rewritten by install, edits are lost
import { spawn } from 'node:child_process';

const COMMAND = ${JSON.stringify(argv)};
const LISTENED = new Set(${JSON.stringify(listened)});
const USAGE_FIELD = ${JSON.stringify(usageField)};
// hooks whose answer carries a person's messages, and the answer's field holding their text
const MESSAGE_FIELDS = ${JSON.stringify(messageFields)};

export const SessionHub = async ({ directory, client }) => {
  let queue = Promise.resolve();
  // per session, this turn's assistant messages (their model and tokens) and its last text: sent with session.idle
  const turns = new Map();
  const turnOf = (id) => turns.get(id) ?? turns.set(id, { text: undefined, messages: new Map() }).get(id);
  const closing = (id) => {
    const turn = turns.get(id);
    turns.delete(id);
    if (!turn) return {};
    const byModel = new Map();
    for (const { model, tokens } of turn.messages.values()) {
      const sum = byModel.get(model) ?? { model, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
      sum.inputTokens += tokens.input ?? 0;
      sum.outputTokens += (tokens.output ?? 0) + (tokens.reasoning ?? 0);
      sum.cacheReadTokens += tokens.cache?.read ?? 0;
      sum.cacheWriteTokens += tokens.cache?.write ?? 0;
      byModel.set(model, sum);
    }
    return { ...(turn.text ? { last_assistant_message: turn.text } : {}), ...(USAGE_FIELD && byModel.size > 0 ? { [USAGE_FIELD]: [...byModel.values()] } : {}) };
  };
  const track = (event) => {
    const properties = event.properties ?? {};
    const info = properties.info;
    if (event.type === 'message.updated' && info?.role === 'assistant' && typeof info.sessionID === 'string' && typeof info.modelID === 'string' && info.tokens) {
      turnOf(info.sessionID).messages.set(info.id, { model: info.modelID, tokens: info.tokens });
    }
    const part = properties.part;
    if (event.type === 'message.part.updated' && part?.type === 'text' && !part.synthetic && typeof part.text === 'string' && part.text !== '') {
      const turn = turns.get(part.sessionID);
      if (turn?.messages.has(part.messageID)) turn.text = part.text;
    }
  };
  const run = (payload) =>
    new Promise((done) => {
      const child = spawn(COMMAND[0], COMMAND.slice(1), { stdio: ['pipe', 'pipe', 'ignore'] });
      let stdout = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.on('error', () => done(''));
      child.on('close', () => done(stdout));
      child.stdin.on('error', () => undefined);
      child.stdin.end(JSON.stringify(payload));
    });
  // the person's words as the session's next user message, nothing added
  const deliver = (name, sessionId, stdout) => {
    const field = MESSAGE_FIELDS[name];
    if (!field || !stdout.trim() || !client?.session?.prompt) return;
    let text;
    try {
      text = JSON.parse(stdout)[field];
    } catch {
      return;
    }
    // not awaited: the prompt runs the agent's next turn, and the hooks of that turn must not queue behind it
    if (typeof text === 'string' && text) Promise.resolve(client.session.prompt({ path: { id: sessionId }, body: { parts: [{ type: 'text', text }] } })).catch(() => undefined);
  };
  const send = (name, sessionId, fields) => {
    if (!LISTENED.has(name) || typeof sessionId !== 'string') return;
    const payload = { hook_event_name: name, session_id: sessionId, cwd: directory, ...fields };
    queue = queue.then(() => run(payload)).then((stdout) => deliver(name, sessionId, stdout));
  };
  return {
    event: async ({ event }) => {
      track(event);
      const properties = event.properties ?? {};
      const sessionId = properties.sessionID ?? properties.info?.id;
      send(event.type, sessionId, { properties, ...(event.type === 'session.idle' ? closing(sessionId) : {}) });
    },
    'chat.message': async (input, output) => {
      turns.delete(input.sessionID);
      const prompt = (output.parts ?? []).filter((part) => part.type === 'text' && !part.synthetic).map((part) => part.text).join('\\n\\n');
      send('chat.message', input.sessionID, { prompt, message_id: input.messageID });
    },
    'tool.execute.before': async (input, output) => {
      send('tool.execute.before', input.sessionID, { tool_name: input.tool, tool_use_id: input.callID, tool_input: output.args });
    },
    'tool.execute.after': async (input, output) => {
      send('tool.execute.after', input.sessionID, { tool_name: input.tool, tool_use_id: input.callID, tool_response: { title: output.title, output: output.output } });
    },
  };
};
`;
}
