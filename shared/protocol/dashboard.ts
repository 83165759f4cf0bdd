import { z } from 'zod';
import { okAck } from './acks.js';
import { SessionSnapshotSchema, SidSchema } from './session.js';

export const SubscribePayloadSchema = z.object({
  sids: z.array(SidSchema).max(10_000).optional(),
  sinceSeq: z.number().int().nonnegative().optional(),
});
export type SubscribePayload = z.infer<typeof SubscribePayloadSchema>;
/** `seq` is the latest seq the snapshots include. */
export const SubscribeAckSchema = okAck({ sessions: z.array(SessionSnapshotSchema), seq: z.number().int().nonnegative() });
export type SubscribeAck = z.infer<typeof SubscribeAckSchema>;

export const UnsubscribePayloadSchema = z.object({ sids: z.array(SidSchema).max(10_000).optional() });
export type UnsubscribePayload = z.infer<typeof UnsubscribePayloadSchema>;
