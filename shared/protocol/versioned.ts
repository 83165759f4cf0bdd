import { z } from 'zod';
import { versionedAck } from './acks.js';
import { idSchema } from './ids.js';
import { JsonObjectSchema } from './json.js';
import { SidSchema } from './session.js';

const RequestIdSchema = idSchema(128);
const ExpectedVersionSchema = z.number().int('must be an integer').min(1, 'must be at least 1');

/** `update-metadata`: exactly one of a whole document (`metadata`) or an RFC 7386 merge `patch`. */
export const UpdateMetadataPayloadSchema = z
  .object({
    sid: SidSchema,
    expectedVersion: ExpectedVersionSchema,
    metadata: JsonObjectSchema.optional(),
    patch: JsonObjectSchema.optional(),
    requestId: RequestIdSchema.optional(),
  })
  .superRefine((payload, ctx) => {
    const hasMetadata = payload.metadata !== undefined;
    const hasPatch = payload.patch !== undefined;
    if (hasMetadata === hasPatch) {
      ctx.addIssue({ code: 'custom', path: [hasMetadata ? 'patch' : 'metadata'], message: 'exactly one of metadata and patch must be present' });
    }
  });
export type UpdateMetadataPayload = z.infer<typeof UpdateMetadataPayloadSchema>;
export const UpdateMetadataAckSchema = versionedAck('metadata', JsonObjectSchema);
export type UpdateMetadataAck = z.infer<typeof UpdateMetadataAckSchema>;

/** `update-state`: whole-document replace of agentState (an object or null). */
export const UpdateStatePayloadSchema = z.object({
  sid: SidSchema,
  expectedVersion: ExpectedVersionSchema,
  agentState: JsonObjectSchema.nullable(),
  requestId: RequestIdSchema.optional(),
});
export type UpdateStatePayload = z.infer<typeof UpdateStatePayloadSchema>;
export const UpdateStateAckSchema = versionedAck('agentState', JsonObjectSchema.nullable());
export type UpdateStateAck = z.infer<typeof UpdateStateAckSchema>;
