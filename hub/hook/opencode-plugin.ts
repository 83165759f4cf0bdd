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
/** A node one-liner: waits until the process of the pid given ends (gone, or a zombie where /proc tells), at most 3 s. */
const WAIT_FOR_PID = `const pid = Number(process.argv[1]), until = Date.now() + 3000;
const ended = () => { try { const stat = require('node:fs').readFileSync('/proc/' + pid + '/stat', 'utf8'); return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z'); } catch { try { process.kill(pid, 0); return false; } catch { return true; } } };
const wait = () => (ended() || Date.now() > until ? process.exit(0) : setTimeout(wait, 10));
wait();`;

export function opencodePlugin(flavor: FlavorDeclaration, argv: readonly string[]): string {
  const listened = Object.keys(flavor.hooks);
  const usageField = flavor.payloadUsage?.field ?? null;
  const messageFields = Object.fromEntries(Object.entries(flavor.hookConfig?.messageHooks ?? {}).map(([hook, output]) => [hook, output.textField]));
  return `${PLUGIN_MARKER} for ${flavor.displayName} (session-hub hook install ${flavor.id}): rewritten by install, edits are lost
import { spawn, spawnSync } from 'node:child_process';

const COMMAND = ${JSON.stringify(argv)};
const LISTENED = new Set(${JSON.stringify(listened)});
const USAGE_FIELD = ${JSON.stringify(usageField)};
// hooks whose answer carries a person's messages, and the answer's field holding their text
const MESSAGE_FIELDS = ${JSON.stringify(messageFields)};
// run by the bridge's node with a pid: returns once that process has ended (gone, or a zombie), within 3 s
const WAIT_FOR_PID = ${JSON.stringify(WAIT_FOR_PID)};

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
  // the bridge process running now, if any: the process's exit waits for it (below)
  let running;
  const run = (payload) =>
    new Promise((done) => {
      const child = spawn(COMMAND[0], COMMAND.slice(1), { stdio: ['pipe', 'pipe', 'ignore'] });
      running = { child, payload };
      let stdout = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.on('error', () => done(''));
      child.on('close', () => {
        if (running?.child === child) running = undefined;
        done(stdout);
      });
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
  // payloads not yet handed to a bridge process, in order; and the sessions this process reported
  const pending = [];
  const seen = new Set();
  const send = (name, sessionId, fields) => {
    if (!LISTENED.has(name) || typeof sessionId !== 'string') return;
    seen.add(sessionId);
    pending.push({ hook_event_name: name, session_id: sessionId, cwd: directory, ...fields });
    queue = queue.then(() => run(pending.shift())).then((stdout) => deliver(name, sessionId, stdout));
  };
  // The process ends (\`opencode run\` exits right after its session.idle; the TUI quits): no event
  // reaches plugins then, and promises queued here would be dropped. So what is still queued goes to
  // bridge processes now, one after the other (each spools or sends at once: a short wait at exit),
  // then each session this process reported ends with the agent (\`process.exit\`, where listened).
  // They come after the bridge process already running, whose event is older: it must take its seq
  // first (the spool's order is the hub's). This event loop runs no more, so what it had not yet
  // written to that process's stdin never arrives: a process that has its whole payload is waited
  // for (at most 3 s; a process that ended stays a zombie until this one is gone, so ended means
  // gone or a zombie: /proc where there is one); one still waiting for it is killed (it has done
  // nothing yet: the bridge reads all of stdin first) and its payload goes first, from here.
  process.on('exit', () => {
    const now = (payload) => spawnSync(COMMAND[0], COMMAND.slice(1), { input: JSON.stringify(payload), stdio: ['pipe', 'ignore', 'ignore'], timeout: 10_000 });
    if (running?.child.stdin.writableFinished) spawnSync(COMMAND[0], ['-e', WAIT_FOR_PID, String(running.child.pid)], { stdio: 'ignore', timeout: 3_500 });
    else if (running) {
      running.child.kill('SIGKILL');
      now(running.payload);
    }
    for (const payload of pending.splice(0)) now(payload);
    if (LISTENED.has('process.exit')) for (const sessionId of seen) now({ hook_event_name: 'process.exit', session_id: sessionId, cwd: directory });
  });
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
