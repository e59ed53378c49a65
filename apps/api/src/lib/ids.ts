/**
 * Whether a path or body value can be one of our ids (PostgreSQL uuid). Checked before any query:
 * anything else would make the database throw, and the caller should get NOT_FOUND instead of a 500.
 */
export const isUuid = (value: string): boolean =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
