import { z } from 'zod';
import { okAck } from './acks.js';
import { SeqSchema, SessionSnapshotSchema, SidSchema } from './session.js';

export const SubscribePayloadSchema = z.object({
  sids: z.array(SidSchema).max(10_000).optional(),
  sinceSeq: SeqSchema.optional(),
});
export type SubscribePayload = z.infer<typeof SubscribePayloadSchema>;
/** `seq` is the latest seq the snapshots include. */
export const SubscribeAckSchema = okAck({ sessions: z.array(SessionSnapshotSchema), seq: SeqSchema });
export type SubscribeAck = z.infer<typeof SubscribeAckSchema>;

export const UnsubscribePayloadSchema = z.object({ sids: z.array(SidSchema).max(10_000).optional() });
export type UnsubscribePayload = z.infer<typeof UnsubscribePayloadSchema>;
