/**
 * The agent flavor registry (spec section 8): the one place that knows anything about a flavor.
 * Behaviour reads these declarations; no code branches on a flavor's id.
 */

/** The hub events an agent hook can be mapped to. */
export type HookAction =
  | 'session-start'
  | 'prompt-submit'
  /** A tool started: a running activity, completed by the tool-use / tool-failure with the same tool use id. */
  | 'tool-start'
  /** A tool finished (completes its running activity, or records a finished one). */
  | 'tool-use'
  | 'tool-failure'
  /**
   * A batch of tools ended (Claude Code's PostToolBatch: `tool_calls`, each with the tool's fields):
   * each listed tool with no end of its own yet was not run (a tool `claude -p` denies fires no
   * PostToolUse), so it ends `denied`, its `tool_response` (the denial text) as its output.
   */
  | 'tool-batch'
  | 'turn-stop'
  /**
   * A turn reported whole when it ends (Codex's `agent-turn-complete` carries its prompt and its
   * answer): opens the turn with its prompt unless that turn is open already, then closes it.
   */
  | 'turn-complete'
  | 'session-end'
  | 'session-finalize'
  /**
   * The agent notified its user (waiting for input, ...): a sign of life of the session; its effect
   * is on attention. Hooks mapped to no action that set attention or wait for an approval apply as this.
   */
  | 'notification';

/** Where a flavor's hook payload keeps each field the bridge needs (dot paths allowed). */
export interface HookFields {
  sessionId: string;
  event: string;
  cwd: string;
  source: string;
  reason: string;
  prompt: string;
  toolName: string;
  toolInput: string;
  toolResponse: string;
  toolUseId: string;
  /** A failed tool's error (PostToolUseFailure). */
  toolError: string;
  response: string;
  /** A tool batch's list of tool calls, each read with the tool fields above (PostToolBatch). */
  toolCalls: string;
}

/**
 * How `session-hub runner` drives the agent headless (docs/runner.md): the CLI it looks for on PATH
 * and the driver module that speaks its headless protocol (runner/drivers/, by name).
 */
export interface RunnerDeclaration {
  cli: string;
  driver: 'claude-stream-json' | 'codex-app-server';
  /** The agent's own CLI resuming a session in a terminal (`session-hub continue`): `{id}` is the resume token. */
  terminalResume: readonly string[];
}

export interface SessionStoreDeclaration {
  dir: string;
  dirEnv?: string;
  files: string;
  /** The reader of runner/agent-sessions/, by name. */
  format: 'claude-jsonl' | 'codex-rollout';
}

export interface FlavorDeclaration {
  id: string;
  displayName: string;
  /** The metadata key that holds this agent's resume token; protected by the merge rules. */
  resumeTokenKey: string;
  /** Keys that live and die with the token (carried only while the token is carried). */
  pairedKeys: readonly string[];
  /** True when the agent fires its session-end hook after every turn, not once at exit. */
  sessionEndIsTurnBoundary: boolean;
  /** The agent's own hook event names, mapped to hub events. */
  hooks: Readonly<Record<string, HookAction>>;
  /** Overrides of the payload field names, where they differ from Claude Code's. */
  hookFields?: Partial<HookFields>;
  /**
   * Other payload shapes of the same agent (Codex's notify JSON beside its hooks): the first variant
   * whose `when` field (a dot path) the payload has overrides `hookFields` for that payload.
   */
  hookFieldVariants?: readonly { when: string; fields: Partial<HookFields> }[];
  /**
   * Tool hooks whose payload names no tool (Cursor's afterShellExecution is a shell command): the
   * tool's name, and the payload fields (dot paths) that make its input and output.
   */
  hookTools?: Readonly<Record<string, HookToolDeclaration>>;
  /** How `session-hub hook install` writes this agent's hook configuration, where it knows how. */
  hookConfig?: HookConfigDeclaration;
  /** Which of the agent's hooks set or clear the session's attention (docs/attention.md). */
  attention?: Readonly<Record<string, AttentionRule>>;
  /**
   * The agent writes a transcript with token usage at this payload field, in this format (which
   * picks the bridge's reader: hub/hook/turn-usage.ts): the bridge remembers where a turn begins (at
   * its session-start or prompt-submit hooks) and, at the turn-stop hook, reads the turn's usage from
   * there on and sends it with the event (docs/usage.md).
   */
  transcriptUsage?: {
    pathField: string;
    format: TranscriptFormat;
    /** The payload field naming the model, for usage the transcript does not attribute. */
    modelField?: string;
    /**
     * The agent writes its transcript behind a timer and may fire its turn-stop hook before the last
     * message is on disk: the bridge re-reads, briefly, until the transcript holds the turn's closing
     * text (the payload's `response` field, above) (hub/hook/turn-usage.ts).
     */
    awaitsResponse?: true;
    /**
     * The reader's text blocks are the agent's own words: the bridge sends those written since its
     * last read with each tool hook (tool-start, tool-use, tool-failure) and the turn-stop, for the
     * turn timeline (hub/hook/agent-texts.ts; docs/hooks.md).
     */
    texts?: true;
  };
  /**
   * The turn-stop payload field that carries the turn's usage itself, as the hub's usage reports
   * (`[{ model, inputTokens, outputTokens, cacheReadTokens?, cacheWriteTokens? }]`): for an agent
   * whose hook plugin counts it (OpenCode's, from its assistant messages' `tokens`), no transcript.
   */
  payloadUsage?: { field: string };
  /** The machine runner can start and drive this agent (section 14). */
  runner?: RunnerDeclaration;
  /**
   * Where the agent keeps its own sessions on a machine, and how they are read (spec section 16,
   * docs/agent-sessions.md): the runner lists and imports them. `dir` under the home (`~/…`) unless
   * `dirEnv` names another; `files` the transcripts under it (`*` one path part, `**` any).
   */
  sessionStore?: SessionStoreDeclaration;
  /**
   * What the agent's own session id (its resume token) looks like, exactly; absent: SAFE_TOKEN.
   * Checked where the token is used: before a Continue sends it and by the runner before it starts
   * anything (resumeTokenProblem), so no value a hook or runner wrote reaches a command line unless
   * it is what the agent itself would have made.
   */
  resumeToken?: ResumeTokenFormat;
}

/** A resume token's format: the pattern, and how an error message names it. */
export interface ResumeTokenFormat {
  pattern: RegExp;
  description: string;
}

/** Claude Code's session ids (`--session-id` takes only a UUID) and Codex's thread ids (UUID v7). */
export const UUID_TOKEN: ResumeTokenFormat = {
  pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  description: 'a UUID (8-4-4-4-12 hexadecimal digits)',
};

/**
 * Every resume token, of any flavor, whoever writes it (the hub refuses others at every write): it
 * can never be read as a command-line option (no leading `-`) and holds no whitespace, control,
 * quote or shell character.
 */
export const SAFE_TOKEN: ResumeTokenFormat = {
  pattern: /^[A-Za-z0-9][A-Za-z0-9._:-]{0,255}$/,
  description: 'a letter or digit, then at most 255 letters, digits, ".", "_", ":" or "-"',
};

/**
 * Transcript formats the hook bridge reads: Claude Code's JSONL (a line per content block, usage
 * repeated), Gemini CLI's session JSONL (whole message records re-appended as they change), Codex's
 * rollout JSONL (a `token_usage_record` per model response; hub/hook/codex-rollout-usage.ts).
 */
export type TranscriptFormat = 'claude-jsonl' | 'gemini-jsonl' | 'codex-jsonl';

/**
 * The `type` of a model's message in Gemini CLI's session JSONL (chatRecordingService.ts): the
 * record the reader counts. Kept here, with the agents' other names, as the one place that spells it.
 */
export const GEMINI_JSONL_MODEL_MESSAGE_TYPE = 'gemini';

export interface HookToolDeclaration {
  tool: string;
  /** The payload field that identifies this tool call, when not the flavor's `toolUseId` (a start and its end share it). */
  toolUseId?: string;
  /** Fields gathered into the input object (one field: its value as it is). */
  input: readonly string[];
  output?: readonly string[];
}

/** The attention kinds (shared/protocol/session.ts holds the wire schema; this file imports nothing). */
export type AttentionKindName = 'permission' | 'question' | 'done' | 'failed';
/** What a hook does to attention: set a kind, clear it, or nothing (null: e.g. an unrelated notification). */
export type AttentionEffect = AttentionKindName | 'clear' | null;

/**
 * One hook's effect on attention. `effect` is fixed, or chosen by the value of a payload field
 * (`byField`: Claude Code's Notification by its `notification_type`); a value not listed takes
 * `otherwise` (default: no change). `message` and `tool` name payload fields (dot paths); the first
 * non-empty string of `message` is the attention's text.
 */
export interface AttentionRule {
  effect?: AttentionEffect;
  byField?: { path: string; values: Readonly<Record<string, AttentionEffect>>; otherwise?: AttentionEffect };
  message?: readonly string[];
  tool?: string;
}

/** The hooks that mean "the agent works again": attention is cleared. */
function clearedBy(...hooks: string[]): Record<string, AttentionRule> {
  return Object.fromEntries(hooks.map((hook) => [hook, { effect: 'clear' }]));
}

/**
 * An agent's hook configuration file, by format:
 * - `settings-json`: a JSON file whose `hooks` object maps each event name to
 *   `[{ matcher?, hooks: [{ type: 'command', command }] }]` (Claude Code, Gemini CLI);
 * - `hooks-json`: `{ version: 1, hooks: { <event>: [{ command }] } }` (Cursor's `.cursor/hooks.json`);
 * - `notify-toml`: one `notify = [program, ...args]` entry in a TOML file, run with the payload as
 *   its last argument (Codex's `config.toml`; Codex runs one notify program);
 * - `plugin-js`: a JavaScript plugin file the agent loads, which runs the hook command with each
 *   event's payload on stdin (OpenCode's `.opencode/plugin/`).
 */
export interface HookConfigDeclaration {
  format: 'settings-json' | 'hooks-json' | 'notify-toml' | 'plugin-js';
  /** The default file, relative to the project directory (or `~/…`: the user's). */
  file: string;
  /** The user-level file, for every project (`hook install <flavor> --user`); absent: the agent has none we write. */
  userFile?: string;
  /**
   * An environment variable naming the directory that holds `file` when set, in place of the
   * declared file's directory (Codex reads $CODEX_HOME/hooks.json, default ~/.codex).
   */
  dirEnv?: string;
  /**
   * The unit the agent reads a hook's `timeout` in (default seconds, Claude Code's and Codex's);
   * Gemini CLI's is milliseconds (its hookRunner: `Hook timed out after ${timeout}ms`, default 60000).
   */
  timeoutUnit?: 'seconds' | 'milliseconds';
  /**
   * Hooks install writes `"async": true` (the agent runs them in the background and goes on). An
   * event is durable only once the bridge has spooled it, and an agent may kill a background hook
   * before that (Claude Code does when `claude -p` exits): only hooks whose loss costs nothing
   * belong here. Every other hook is synchronous: the agent waits one bridge call (docs/hooks.md).
   */
  asyncHooks?: readonly string[];
  /**
   * The field of the hook's JSON output the agent shows its user (Claude Code's and Gemini CLI's
   * `systemMessage`): the bridge says there, once per session, that its token is refused.
   */
  userMessageField?: string;
  /**
   * Hooks the agent waits on for an answer: a tool call asking for approval (Claude Code's
   * `PermissionRequest`). Installed synchronous with a timeout above the bridge's wait; the bridge
   * sends them `sync` outside its spool lock, the hub opens an approval and answers with the
   * decision (shared/permission-output.ts), or with nothing when nobody decides in time.
   */
  approvalHooks?: readonly string[];
  /**
   * "Always allow this here" from the page: the approval hook's payload field holding the agent's
   * own suggested permission rules (Claude Code's `permission_suggestions`, what its "Yes, and
   * don't ask again" saves); an allow that says `always` hands the `addRules` / `allow` ones back
   * as the decision's `updatedPermissions` (shared/permission-output.ts). Absent: not offered.
   */
  alwaysAllowField?: string;
  /**
   * Mapped events that are not hooks of this file (Codex's notify notifications, sent by the
   * `notify` program older installs set): the hub still maps them; install does not write them.
   */
  notInstalled?: readonly string[];
  /**
   * The configuration `hook install <flavor> --notify` writes instead: the agent's notification
   * program, for its versions without hooks (Codex's `notify` in config.toml).
   */
  notify?: HookConfigDeclaration;
  /**
   * Hooks that hand the agent a person's queued messages when it stops (docs/messages.md): the bridge
   * sends the event it fired with `take`, the hub marks the session's queued messages delivered and
   * answers this JSON, which the agent reads as its next instruction. None queued: no answer, the
   * agent stops as usual. These hooks never wait.
   */
  messageHooks?: Readonly<Record<string, MessageHookOutput>>;
  /**
   * Tool calls that ask the person something (Claude Code's AskUserQuestion, ExitPlanMode), by the
   * hook that sees them first (PreToolUse): install writes a synchronous entry matched to these tools
   * (`<command> --ask`), the hub opens an approval carrying the tool's input and the bridge prints
   * the answer in that hook's form (shared/question-output.ts). Other tool calls never wait.
   */
  questionHooks?: Readonly<Record<string, { tools: readonly string[] }>>;
  /**
   * A background hook that waits for a person's message after the agent stopped and wakes it with the
   * text (Claude Code's `asyncRewake`: exit 2, the text on stderr). Installed beside the hook's own
   * entry; a newer waiter of the same session replaces the older one.
   */
  wakeHook?: WakeHookDeclaration;
  /**
   * The agent runs its hooks from one process per agent session, which lives as long as the session
   * (a CLI in a terminal or `-p`): the bridge starts one keeper per agent process that tells the hub
   * it lives and when it died (hub/hook/agent-keeper.ts), so a killed agent shows "lost contact"
   * within a minute. Absent: an agent whose hooks come from a long-lived host (an IDE, a server
   * holding many sessions), whose life says nothing of the session's. `processNames`: the agent's
   * program as its process shows it (argv[0], or the script node runs): the keeper watches the
   * nearest ancestor of the hook that is one, never a guess (a wrapper such as `npx`, `pnpm dlx` or
   * a person's script between the agent and the hook exits after each hook: issue 46.3); no such
   * ancestor, no keeper.
   */
  agentKeeper?: { processNames: readonly string[] };
}

/**
 * The JSON a message hook prints: `fixed` fields as they are, and the person's texts (in order,
 * separated by a blank line) at `textField`.
 */
export interface MessageHookOutput {
  fixed?: Readonly<Record<string, string>>;
  textField: string;
}

export interface WakeHookDeclaration {
  /** The agent's hook event the waiter runs on. */
  event: string;
  /** The hook config field that makes it a waking background hook (`asyncRewake`). */
  flag: string;
  /** How long it waits by default (ms); `SESSION_HUB_WAKE_WAIT_MS` overrides, and install writes the timeout above it. */
  waitMs: number;
  /** The exit code that wakes the agent, the text on stderr. */
  wakeExitCode: number;
  /**
   * How the waiter knows no person is at a terminal (a headless run, which does not end while its
   * background hooks run): the agent's environment variable, which its hooks inherit, and the values
   * that mean headless. There the waiter exits at once; messages wait for the agent's next stop.
   */
  headless: { env: string; values: readonly string[] };
  /**
   * How the agent reports the prompt a wake starts (its hook-submitted prompt carries the waiter's
   * text wrapped in the agent's own words): a regular expression whose first group is that text.
   * Such a prompt continues the turn the hub opened with the person's message when it delivered it,
   * and shows as those words (issue 34: not as a second turn reading the agent's internals).
   */
  prompt: RegExp;
}

/** Claude Code's hook payload fields; other flavors override only what differs. */
export const DEFAULT_HOOK_FIELDS: HookFields = {
  sessionId: 'session_id',
  event: 'hook_event_name',
  cwd: 'cwd',
  source: 'source',
  reason: 'reason',
  prompt: 'prompt',
  toolName: 'tool_name',
  toolInput: 'tool_input',
  toolResponse: 'tool_response',
  toolUseId: 'tool_use_id',
  toolError: 'error',
  toolCalls: 'tool_calls',
  response: 'last_assistant_message',
};

const CLAUDE_STYLE_HOOKS = {
  SessionStart: 'session-start',
  UserPromptSubmit: 'prompt-submit',
  PostToolUse: 'tool-use',
  Stop: 'turn-stop',
  SessionEnd: 'session-end',
} as const satisfies Record<string, HookAction>;

/**
 * Claude Code (code.claude.com/docs/en/hooks): Notification by notification_type (permission_prompt,
 * idle_prompt, elicitation_dialog; auth_success changes nothing), PermissionRequest, Stop, and
 * StopFailure (an API error ended the turn; its last_assistant_message is the error text).
 */
const CLAUDE_ATTENTION: Record<string, AttentionRule> = {
  Notification: {
    // idle_prompt ("Claude is waiting for your input") asks nothing: the Stop before it said the turn is done
    byField: { path: 'notification_type', values: { permission_prompt: 'permission', idle_prompt: null, elicitation_dialog: 'question', auth_success: null } },
    message: ['message'],
  },
  PermissionRequest: { effect: 'permission', tool: 'tool_name' },
  Stop: { effect: 'done', message: ['last_assistant_message'] },
  StopFailure: { effect: 'failed', message: ['last_assistant_message', 'error_details', 'error'] },
  ...clearedBy('UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'SessionEnd'),
};

/**
 * Claude Code's hooks reference (code.claude.com/docs/en/hooks): PreToolUse, PostToolUse and
 * PostToolUseFailure carry `tool_use_id`, so a started tool is paired with its end. PermissionRequest
 * and StopFailure map to no action: they act through `attention` and `hookConfig.approvalHooks`.
 */
const CLAUDE_CODE_HOOKS = {
  ...CLAUDE_STYLE_HOOKS,
  PreToolUse: 'tool-start',
  PostToolUseFailure: 'tool-failure',
  // a tool -p denied has no PostToolUse; its batch's end carries the denial (fixture claude-code-2.1.197-headless-denied-post-tool-batch.json)
  PostToolBatch: 'tool-batch',
  Notification: 'notification',
  // a subagent works inside its parent's session (its hooks carry the parent's session_id, its tool
  // hooks add agent_id/agent_type): shown as one activity of the parent's turn, from start to stop
  SubagentStart: 'tool-start',
  SubagentStop: 'tool-use',
  // compaction (trigger manual | auto): a sign of life; the SessionStart with source compact that
  // follows reopens nothing; PostCompact (its compact_summary) ends it (fixture claude-code-2.1.197-headless-compact.json)
  PreCompact: 'notification',
  PostCompact: 'notification',
} as const satisfies Record<string, HookAction>;

/** Claude Code's SubagentStart/SubagentStop name no tool: a `Subagent` activity, paired by `agent_id`. */
const CLAUDE_SUBAGENT_TOOL = { tool: 'Subagent', toolUseId: 'agent_id', input: ['agent_type'] } as const;

const declarations: FlavorDeclaration[] = [
  {
    id: 'claude', displayName: 'Claude Code', resumeTokenKey: 'claudeSessionId', pairedKeys: [], sessionEndIsTurnBoundary: false, hooks: CLAUDE_CODE_HOOKS,
    // every hook synchronous (no asyncHooks): when `claude -p` exits, Claude Code 2.1.197 kills the
    // async hooks still running (SIGTERM, ~100-200 ms after their spawn, before they spool) and
    // skips SessionEnd while one is pending (test/agents/claude-headless.test.ts). The agent waits
    // one bridge call per hook instead (~1.7x a bare node start; docs/hooks.md)
    hookConfig: {
      // code.claude.com/docs/en/settings: ~/.claude/settings.json applies to every project
      format: 'settings-json', file: '.claude/settings.json', userFile: '~/.claude/settings.json', userMessageField: 'systemMessage', approvalHooks: ['PermissionRequest'], alwaysAllowField: 'permission_suggestions',
      // code.claude.com/docs/en/hooks "Stop decision control": decision "block" + reason makes Claude
      // go on with the reason as its next instruction (a turn ends after 8 blocks in a row)
      messageHooks: { Stop: { fixed: { decision: 'block' }, textField: 'reason' } },
      // code.claude.com/docs/en/hooks "asyncRewake": a background hook that exits 2 wakes the idle
      // session, its stderr shown to Claude
      // Claude Code sets CLAUDE_CODE_ENTRYPOINT: "sdk-cli" under `-p`, "cli" in a terminal, the
      // SDKs' own values when they spawn it (2.1.197 binary; test/agents/claude-messages.test.ts)
      wakeHook: {
        event: 'Stop', flag: 'asyncRewake', waitMs: 600_000, wakeExitCode: 2,
        headless: { env: 'CLAUDE_CODE_ENTRYPOINT', values: ['sdk-cli', 'sdk-ts', 'sdk-py', 'claude-code-github-action'] },
        // 2.1.197 queues the wake as a task-notification and fires UserPromptSubmit with it:
        // "<task-notification>\n<summary>Stop hook feedback</summary>\n</task-notification>\n<system-reminder>\n
        // Stop hook blocking error from command \"Stop\": <stderr>\n</system-reminder>" (test/agents/claude-messages.test.ts)
        prompt: /^<task-notification>\s*<summary>[^<]*<\/summary>\s*<\/task-notification>\s*<system-reminder>\s*Stop hook blocking error from command "[^\n]*?":[ \t]?([\s\S]*?)\s*<\/system-reminder>\s*$/,
      },
      // code.claude.com/docs/en/hooks "PreToolUse decision control": permissionDecision allow with
      // updatedInput (AskUserQuestion: its questions and an answers map) answers for the user
      questionHooks: { PreToolUse: { tools: ['AskUserQuestion', 'ExitPlanMode'] } },
      // one `claude` process per session, running every hook (test/agents/claude-killed.test.ts):
      // the native binary is `claude` (a real run's /proc cmdline: argv[0] as started, no process
      // title of its own), as is the npm wrapper's bin script node runs; the npm package's native
      // binary is `bin/claude.exe` on every platform (2.1.197), so started by its path it reads so
      agentKeeper: { processNames: ['claude', 'claude.exe'] },
    },
    attention: CLAUDE_ATTENTION,
    hookTools: { SubagentStart: CLAUDE_SUBAGENT_TOOL, SubagentStop: { ...CLAUDE_SUBAGENT_TOOL, output: ['last_assistant_message'] } },
    // Claude Code 2.1.197 queues transcript writes and flushes them every 100 ms (FLUSH_INTERVAL_MS),
    // and fires Stop without waiting for the flush: the closing message may not be on disk yet
    transcriptUsage: { pathField: 'transcript_path', format: 'claude-jsonl', awaitsResponse: true, texts: true },
    // `claude -p --input-format stream-json --output-format stream-json` (runner/drivers/claude-stream-json.ts)
    runner: { cli: 'claude', driver: 'claude-stream-json', terminalResume: ['--resume={id}'] },
    // ~/.claude/projects/<cwd with / as ->/<session id>.jsonl, one JSON a line (CLAUDE_CONFIG_DIR moves it)
    sessionStore: { dir: '~/.claude', dirEnv: 'CLAUDE_CONFIG_DIR', files: 'projects/*/*.jsonl', format: 'claude-jsonl' },
    // `--session-id` must be a valid UUID (Claude Code 2.1.x); its hooks' session_id is the same id
    resumeToken: UUID_TOKEN,
  },
  {
    id: 'codex', displayName: 'Codex', resumeTokenKey: 'codexSessionId', pairedKeys: [], sessionEndIsTurnBoundary: false,
    // Codex hooks (openai/codex codex-rs/hooks; `hooks` stable in 0.169.0): Claude Code's payload
    // fields, transcript_path the rollout JSONL (test/hook/fixtures/agents/codex-0.169.0-*.json).
    // notify (developers.openai.com/codex config `notify`, codex-rs/core/src/user_notification.rs):
    // the one program Codex ran before hooks, with the notification JSON as its last argument,
    // `type` agent-turn-complete, kebab-case fields; still mapped for installs that use it
    hooks: {
      SessionStart: 'session-start', UserPromptSubmit: 'prompt-submit', PreToolUse: 'tool-start', PostToolUse: 'tool-use', Stop: 'turn-stop', SessionEnd: 'session-end',
      'agent-turn-start': 'prompt-submit', 'agent-turn-complete': 'turn-complete',
    },
    hookFieldVariants: [{ when: 'type', fields: { sessionId: 'thread-id', event: 'type', prompt: 'input-messages', response: 'last-assistant-message' } }],
    // $CODEX_HOME/hooks.json (default ~/.codex), a `hooks` block as Claude Code's; every hook
    // synchronous (the agent waits one bridge call; none is lost when `codex exec` ends); hooks a
    // user installs are not managed: Codex runs them once trusted (`/hooks` in the TUI) or with
    // --dangerously-bypass-hook-trust (docs/hooks.md)
    hookConfig: {
      format: 'settings-json', file: '~/.codex/hooks.json', dirEnv: 'CODEX_HOME', userMessageField: 'systemMessage', approvalHooks: ['PermissionRequest'],
      // codex-rs/hooks stop.command.output.schema.json: decision "block" with a non-blank reason, Claude Code's shape;
      // 0.169.0 goes on in the same turn, the reason a user message in <hook_prompt> (test/agents/codex-messages.test.ts)
      messageHooks: { Stop: { fixed: { decision: 'block' }, textField: 'reason' } },
      notInstalled: ['agent-turn-start', 'agent-turn-complete'],
      // Codex before hooks: `hook install codex --notify` sets notify (not both: each turn would be reported twice)
      notify: { format: 'notify-toml', file: '~/.codex/config.toml', dirEnv: 'CODEX_HOME' },
    },
    attention: {
      PermissionRequest: { effect: 'permission', tool: 'tool_name' },
      Stop: { effect: 'done', message: ['last_assistant_message'] },
      'agent-turn-complete': { effect: 'done', message: ['last-assistant-message'] },
      ...clearedBy('UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'SessionEnd', 'agent-turn-start'),
    },
    // the rollout's usage records name no model, its turn_context does (before the turn's start, at times): the payload's `model` then
    transcriptUsage: { pathField: 'transcript_path', format: 'codex-jsonl', modelField: 'model' },
    // `codex app-server`, JSON-RPC over stdio: threads, turns, interrupts, approvals (runner/drivers/codex-app-server.ts)
    runner: { cli: 'codex', driver: 'codex-app-server', terminalResume: ['resume', '{id}'] },
    // $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl
    sessionStore: { dir: '~/.codex', dirEnv: 'CODEX_HOME', files: 'sessions/**/rollout-*.jsonl', format: 'codex-rollout' },
    // thread ids are UUIDs (v7: codex-rs ThreadId::new), hooks' session_id and notify's thread-id the same
    resumeToken: UUID_TOKEN,
  },
  {
    id: 'cursor', displayName: 'Cursor', resumeTokenKey: 'cursorSessionId', pairedKeys: ['cursorSessionProtocol'], sessionEndIsTurnBoundary: false,
    hooks: { sessionStart: 'session-start', beforeSubmitPrompt: 'prompt-submit', afterShellExecution: 'tool-use', afterFileEdit: 'tool-use', afterMCPExecution: 'tool-use', stop: 'turn-stop', sessionEnd: 'session-end' },
    // cursor.com/docs/agent/hooks: common fields conversation_id, generation_id, hook_event_name,
    // workspace_roots; shell and file hooks name no tool; hooks.json holds `{ command }` entries
    hookFields: { sessionId: 'conversation_id', cwd: 'workspace_roots.0', toolName: 'tool_name', toolInput: 'tool_input', toolResponse: 'result_json' },
    hookTools: {
      afterShellExecution: { tool: 'Shell', input: ['command'], output: ['output'] },
      afterFileEdit: { tool: 'Edit', input: ['file_path', 'edits'] },
    },
    // cursor.com/docs/agent/hooks: stop may answer `followup_message`, sent as the next user message (capped by loop_limit)
    hookConfig: { format: 'hooks-json', file: '.cursor/hooks.json', userFile: '~/.cursor/hooks.json', messageHooks: { stop: { textField: 'followup_message' } } },
    // cursor.com/docs/agent/hooks: stop carries status completed | aborted | error
    attention: {
      stop: { byField: { path: 'status', values: { completed: 'done', aborted: 'done', error: 'failed' }, otherwise: 'done' } },
      ...clearedBy('beforeSubmitPrompt', 'beforeShellExecution', 'beforeMCPExecution', 'afterShellExecution', 'afterFileEdit', 'afterMCPExecution', 'sessionEnd'),
    },
  },
  {
    id: 'gemini', displayName: 'Gemini CLI', resumeTokenKey: 'geminiSessionId', pairedKeys: [], sessionEndIsTurnBoundary: false,
    // BeforeTool is not mapped: its payload has no tool call id to pair it with AfterTool
    hooks: { SessionStart: 'session-start', BeforeAgent: 'prompt-submit', AfterTool: 'tool-use', AfterAgent: 'turn-stop', SessionEnd: 'session-end', Notification: 'notification' },
    hookFields: { response: 'prompt_response' },
    // Gemini CLI runs every hook synchronously (its hooks reference): no async to write
    // geminicli.com/docs/hooks/reference AfterAgent: decision "deny" + reason sends the reason as a new prompt
    hookConfig: { format: 'settings-json', file: '.gemini/settings.json', userFile: '~/.gemini/settings.json', userMessageField: 'systemMessage', timeoutUnit: 'milliseconds', messageHooks: { AfterAgent: { fixed: { decision: 'deny' }, textField: 'reason' } } },
    // every hook payload's transcript_path is the ChatRecordingService's session file (hookEventHandler.ts createBaseInput)
    transcriptUsage: { pathField: 'transcript_path', format: 'gemini-jsonl' },
    // geminicli.com/docs/hooks/reference: Notification (notification_type ToolPermission), AfterAgent
    attention: {
      Notification: { byField: { path: 'notification_type', values: { ToolPermission: 'permission' } }, message: ['message'] },
      AfterAgent: { effect: 'done', message: ['prompt_response'] },
      ...clearedBy('BeforeAgent', 'BeforeTool', 'AfterTool', 'SessionEnd'),
    },
  },
  {
    id: 'opencode', displayName: 'OpenCode', resumeTokenKey: 'opencodeSessionId', pairedKeys: [], sessionEndIsTurnBoundary: false,
    // opencode.ai/docs/plugins: no hook commands; the plugin install writes (hub/hook/opencode-plugin.ts)
    // turns these plugin events into flat payloads with Claude Code's field names. `process.exit` is
    // the plugin's own: OpenCode fires no event when it exits (recorded from 1.18.33: the last one
    // `opencode run` hands plugins is its session.idle), only the process's exit
    hooks: {
      'session.created': 'session-start', 'chat.message': 'prompt-submit', 'tool.execute.before': 'tool-start', 'tool.execute.after': 'tool-use',
      'session.idle': 'turn-stop', 'session.deleted': 'session-end', 'process.exit': 'session-end',
    },
    // session.idle: the bridge prints { prompt } with the person's queued texts; the plugin sends it
    // with client.session.prompt (opencode.ai/docs/sdk), the agent's next user message
    hookConfig: { format: 'plugin-js', file: '.opencode/plugins/session-hub.js', messageHooks: { 'session.idle': { textField: 'prompt' } } },
    // the plugin sums the turn's assistant messages' tokens into session.idle's payload
    payloadUsage: { field: 'usage' },
    attention: { 'session.idle': { effect: 'done' }, ...clearedBy('chat.message', 'tool.execute.before', 'tool.execute.after', 'session.deleted', 'process.exit') },
  },
  { id: 'kimi', displayName: 'Kimi CLI', resumeTokenKey: 'kimiSessionId', pairedKeys: [], sessionEndIsTurnBoundary: false, hooks: CLAUDE_STYLE_HOOKS },
  { id: 'copilot', displayName: 'GitHub Copilot CLI', resumeTokenKey: 'copilotSessionId', pairedKeys: [], sessionEndIsTurnBoundary: false, hooks: CLAUDE_STYLE_HOOKS },
  { id: 'pi', displayName: 'Pi', resumeTokenKey: 'piSessionId', pairedKeys: [], sessionEndIsTurnBoundary: false, hooks: CLAUDE_STYLE_HOOKS },
  { id: 'grok', displayName: 'Grok CLI', resumeTokenKey: 'grokSessionId', pairedKeys: [], sessionEndIsTurnBoundary: true, hooks: CLAUDE_STYLE_HOOKS },
  { id: 'antigravity', displayName: 'Antigravity', resumeTokenKey: 'agySessionId', pairedKeys: [], sessionEndIsTurnBoundary: true, hooks: CLAUDE_STYLE_HOOKS },
  {
    id: 'hermes', displayName: 'Hermes Agent', resumeTokenKey: 'hermesSessionId', pairedKeys: [], sessionEndIsTurnBoundary: true,
    hooks: { on_session_start: 'session-start', pre_llm_call: 'prompt-submit', post_tool_call: 'tool-use', on_session_end: 'session-end', on_session_finalize: 'session-finalize' },
    hookFields: { event: 'event', toolName: 'tool_name', toolInput: 'args', toolResponse: 'result', prompt: 'user_message', response: 'response' },
  },
];

export const FLAVORS: ReadonlyMap<string, FlavorDeclaration> = new Map(declarations.map((d) => [d.id, d]));

/** The declaration of a known flavor, or undefined: unknown flavors get no token key and ordinary semantics. */
export function getFlavor(id: string | null | undefined): FlavorDeclaration | undefined {
  return id == null ? undefined : FLAVORS.get(id);
}

export function resumeTokenKeyOf(flavorId: string | null | undefined): string | null {
  return getFlavor(flavorId)?.resumeTokenKey ?? null;
}

export function sessionEndIsTurnBoundary(flavorId: string | null | undefined): boolean {
  return getFlavor(flavorId)?.sessionEndIsTurnBoundary ?? false;
}

/** True when the flavor's agent waits on this hook for an approval decision (`hookConfig.approvalHooks`). */
export function isApprovalHook(flavorId: string, hookName: string | undefined): boolean {
  return hookName !== undefined && (getFlavor(flavorId)?.hookConfig?.approvalHooks ?? []).includes(hookName);
}

/** The flavor's message hook of this name (it may answer with a person's queued messages), if it is one. */
export function messageHookOf(flavorId: string, hookName: string | undefined): MessageHookOutput | undefined {
  return hookName === undefined ? undefined : getFlavor(flavorId)?.hookConfig?.messageHooks?.[hookName];
}

/** True when this hook, for this tool, asks the person (the registry's `questionHooks`). */
export function isQuestionCall(flavorId: string, hookName: string | undefined, toolName: string | undefined): boolean {
  if (hookName === undefined || toolName === undefined) return false;
  return getFlavor(flavorId)?.hookConfig?.questionHooks?.[hookName]?.tools.includes(toolName) ?? false;
}

/**
 * The text a wake gave the agent, when this prompt is the agent's report of one (the registry's
 * `wakeHook.prompt`); undefined for a prompt a person typed.
 */
export function wakeTextOf(flavorId: string, prompt: string): string | undefined {
  const pattern = getFlavor(flavorId)?.hookConfig?.wakeHook?.prompt;
  const text = pattern?.exec(prompt)?.[1];
  return text === undefined ? undefined : text;
}

/** What a message hook prints for these texts: the person's words, in order, nothing added. */
export function messageHookAnswer(output: MessageHookOutput, texts: readonly string[]): Record<string, string> {
  return { ...output.fixed, [output.textField]: texts.join('\n\n') };
}

/**
 * Every hook of the flavor the hub has a use for: mapped to an action, setting or clearing
 * attention, or waiting for an approval (what `hook install` writes).
 */
export function hookNamesOf(flavor: FlavorDeclaration): string[] {
  const skipped = new Set(flavor.hookConfig?.notInstalled ?? []);
  return [...new Set([...Object.keys(flavor.hooks), ...Object.keys(flavor.attention ?? {}), ...(flavor.hookConfig?.approvalHooks ?? [])])].filter((name) => !skipped.has(name));
}

/** Where this payload of the flavor keeps each field (its variant's fields where one matches). */
export function hookFieldsOf(flavorId: string, payload: unknown): HookFields {
  const flavor = getFlavor(flavorId);
  const variant = flavor?.hookFieldVariants?.find((v) => payload !== null && typeof payload === 'object' && !Array.isArray(payload) && hasPath(payload, v.when));
  return { ...DEFAULT_HOOK_FIELDS, ...flavor?.hookFields, ...variant?.fields };
}

function hasPath(payload: object, path: string): boolean {
  let value: unknown = payload;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return false;
    value = (value as Record<string, unknown>)[part];
  }
  return value !== undefined;
}

/**
 * Why this value is not a resume token of the flavor (its declared format, else SAFE_TOKEN; a value
 * must also pass SAFE_TOKEN), or null when it is one.
 */
export function resumeTokenProblem(flavorId: string | null | undefined, token: unknown): string | null {
  const format = getFlavor(flavorId)?.resumeToken ?? SAFE_TOKEN;
  const name = getFlavor(flavorId)?.displayName ?? 'an agent';
  if (typeof token !== 'string') return `must be a string: ${name}'s session id, ${format.description}`;
  if (!SAFE_TOKEN.pattern.test(token) || !format.pattern.test(token)) return `must be ${name}'s session id, ${format.description}`;
  return null;
}

/** Why a value written under a resume-token key could never be one (SAFE_TOKEN), or null; null itself clears the key. */
export function storedTokenProblem(key: string, value: unknown): string | null {
  if (value === null || !TOKEN_KEY_FLAVORS.has(key)) return null;
  if (typeof value === 'string' && SAFE_TOKEN.pattern.test(value)) return null;
  return `${key} must be ${TOKEN_KEY_FLAVORS.get(key)!.displayName}'s session id: ${SAFE_TOKEN.description}`;
}

/** Every flavor's resume-token key. */
export const RESUME_TOKEN_KEYS: readonly string[] = declarations.map((d) => d.resumeTokenKey);
const TOKEN_KEY_FLAVORS: ReadonlyMap<string, FlavorDeclaration> = new Map(declarations.map((d) => [d.resumeTokenKey, d]));

/** Paired key → the token key it belongs to (cursorSessionProtocol → cursorSessionId). */
export const PAIRED_KEYS: ReadonlyMap<string, string> = new Map(
  declarations.flatMap((d) => d.pairedKeys.map((k) => [k, d.resumeTokenKey] as const)),
);
