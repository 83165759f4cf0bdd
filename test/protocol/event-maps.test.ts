/**
 * The Socket.IO event maps are typed from the zod schemas: these checks fail to compile (and so
 * fail `npm run typecheck`) when a map drifts from the schemas, and the runtime checks below pin
 * that every event name in the maps has a schema the hub validates with.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type {
  DashboardClientToServerEvents,
  RunnerClientToServerEvents,
  ServerToClientEvents,
} from '../../shared/protocol/events.js';
import {
  PromptSubmitPayloadSchema,
  SessionStartAckSchema,
  SessionStartPayloadSchema,
  SubscribeAckSchema,
  UpdateEventSchema,
  UpdateMetadataAckSchema,
  UpdateMetadataPayloadSchema,
  UpdateStatePayloadSchema,
  TurnStopPayloadSchema,
  UsageAckSchema,
  UsagePayloadSchema,
} from '../../shared/protocol/index.js';

type PayloadOf<F> = F extends (payload: infer P, ...rest: never[]) => void ? P : never;
type AckOf<F> = F extends (payload: never, ack: (response: infer R) => void) => void ? R : never;

describe('event maps', () => {
  it('type every runner payload and ack from its schema', () => {
    expectTypeOf<PayloadOf<RunnerClientToServerEvents['update-metadata']>>().toEqualTypeOf<z.infer<typeof UpdateMetadataPayloadSchema>>();
    expectTypeOf<AckOf<RunnerClientToServerEvents['update-metadata']>>().toEqualTypeOf<z.infer<typeof UpdateMetadataAckSchema>>();
    expectTypeOf<PayloadOf<RunnerClientToServerEvents['update-state']>>().toEqualTypeOf<z.infer<typeof UpdateStatePayloadSchema>>();
    expectTypeOf<PayloadOf<RunnerClientToServerEvents['session-start']>>().toEqualTypeOf<z.infer<typeof SessionStartPayloadSchema>>();
    expectTypeOf<AckOf<RunnerClientToServerEvents['session-start']>>().toEqualTypeOf<z.infer<typeof SessionStartAckSchema>>();
    expectTypeOf<PayloadOf<RunnerClientToServerEvents['prompt-submit']>>().toEqualTypeOf<z.infer<typeof PromptSubmitPayloadSchema>>();
    expectTypeOf<PayloadOf<RunnerClientToServerEvents['turn-stop']>>().toEqualTypeOf<z.infer<typeof TurnStopPayloadSchema>>();
    expectTypeOf<PayloadOf<RunnerClientToServerEvents['usage']>>().toEqualTypeOf<z.infer<typeof UsagePayloadSchema>>();
    expectTypeOf<AckOf<RunnerClientToServerEvents['usage']>>().toEqualTypeOf<z.infer<typeof UsageAckSchema>>();
  });

  it('type dashboard acks and server events from their schemas', () => {
    expectTypeOf<AckOf<DashboardClientToServerEvents['subscribe']>>().toEqualTypeOf<z.infer<typeof SubscribeAckSchema>>();
    expectTypeOf<Parameters<ServerToClientEvents['update']>[0]>().toEqualTypeOf<z.infer<typeof UpdateEventSchema>>();
  });

  it('a versioned ack is either a stored value or an error, never both', () => {
    const success = UpdateMetadataAckSchema.parse({ result: 'success', version: 2, metadata: { a: 1 } });
    expect(success).toEqual({ result: 'success', version: 2, metadata: { a: 1 } });
    expect(UpdateMetadataAckSchema.safeParse({ result: 'error', version: 2, metadata: {} }).success).toBe(false);
    expect(UpdateMetadataAckSchema.safeParse({ result: 'error', code: 'not_found', message: 'x' }).success).toBe(true);
  });
});
