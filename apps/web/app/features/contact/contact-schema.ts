// Loaded on demand by the contact form: the public contact page itself must not load zod.
export { ContactMessageSchema } from '@edgeclub/shared'
