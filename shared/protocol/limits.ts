/** Spec section 12. Sizes are UTF-8 bytes of the JSON text. */
export const LIMITS = {
  /** A metadata or agentState document, a merge patch, or session-start metadata. */
  maxDocumentBytes: 64 * 1024,
  /** Longer prompts are stored cut at a character boundary and flagged, never rejected. */
  maxPromptBytes: 256 * 1024,
  /** Longer tool inputs or outputs are stored cut and flagged, never rejected. */
  maxToolFieldBytes: 64 * 1024,
  /** The transport accepts frames at least this large, so oversized documents reach validation. */
  maxFrameBytes: 2 * 1024 * 1024,
  /**
   * Deepest nesting accepted in a JSON document (metadata, a hook's payload, …) on every route:
   * socket events, HTTP bodies and the hook bridge (json-depth.ts reads it on the text).
   */
  maxJsonDepth: 64,
  /** Levels an HTTP body may wrap its documents in (POST /api/hooks: the body, `events`, an event, then its `payload`). */
  maxEnvelopeDepth: 3,
  maxStringField: 1024,
  /** POST /api/hooks: a request's body (the bridge cuts its spool into requests under this). */
  maxHookBatchBytes: 1024 * 1024,
  /** POST /api/hooks: events per request. */
  maxHookBatchEvents: 500,
  /**
   * The agent's own words sent with a hook event (its text between tool calls, docs/hooks.md): the
   * bridge cuts a longer text to this many characters and appends AGENT_TEXT_CUT_MARK; the hub
   * refuses a longer one.
   */
  maxAgentTextChars: 20_000,
  /** Texts one hook event carries at most, and their characters together (a batch stays under maxHookBatchBytes). */
  maxAgentTextsPerEvent: 50,
  maxAgentTextCharsPerEvent: 100_000,
} as const;

/** What the bridge appends to a text it cut at maxAgentTextChars (counted apart from the limit). */
export const AGENT_TEXT_CUT_MARK = '\n[… cut by the hook bridge at 20,000 characters]';
