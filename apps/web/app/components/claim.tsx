import { type ClaimKey, DEFAULT_CLAIMS } from '@edgeclub/shared'

/**
 * One of the owner's marketing claims. Prerendered pages hold the default text, marked so the server
 * writes the current claim in (apps/api/src/plugins/web.ts, applyClaims): no script needed. The app's
 * own pages pass the text they fetched.
 */
export function Claim({ name, text }: { name: ClaimKey; text?: string }) {
  return <span data-claim={name}>{text ?? DEFAULT_CLAIMS[name]}</span>
}
