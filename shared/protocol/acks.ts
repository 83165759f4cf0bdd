import { z } from 'zod';
import { ERROR_CODE_LIST } from '../errors.js';

export const ErrorCodeSchema = z.enum(ERROR_CODE_LIST);

export const ErrorBodySchema = z.object({ code: ErrorCodeSchema, message: z.string() });
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** Lifecycle and subscription acks: `{ ok: true, ...fields }` or `{ ok: false, error }`. */
export const FailedAckSchema = z.object({ ok: z.literal(false), error: ErrorBodySchema });
export type FailedAck = z.infer<typeof FailedAckSchema>;

export function okAck<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), ...shape }), FailedAckSchema]);
}

/** Versioned writes: `{ result: 'success' | 'version-mismatch', version, <field> }` or `{ result: 'error', code, message }`. */
export const VersionedErrorAckSchema = z.object({ result: z.literal('error'), code: ErrorCodeSchema, message: z.string() });

export function versionedAck<Field extends string, Value extends z.ZodType>(field: Field, value: Value) {
  const stored = { version: z.number().int(), [field]: value } as { version: z.ZodNumber } & { [K in Field]: Value };
  return z.discriminatedUnion('result', [
    z.object({ result: z.literal('success'), ...stored }),
    z.object({ result: z.literal('version-mismatch'), ...stored }),
    VersionedErrorAckSchema,
  ]);
}

/** A typed ack callback. */
export type Ack<T> = (response: T) => void;
