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
} as const;
