import { z } from 'zod'

/** The success envelope every JSON answer uses, as a response schema (it also serializes the output). */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data, message: z.string().optional() })
}

export const MessageEnvelopeSchema = z.object({ success: z.literal(true), message: z.string() })

export function ok<T>(data: T, message?: string): { success: true; data: T; message?: string } {
  return message === undefined ? { success: true, data } : { success: true, data, message }
}
