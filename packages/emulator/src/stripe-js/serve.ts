import { statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { type Router, sendText } from '../http'
import { originOf, type StripeApi } from '../stripe/api'
import { invalidRequest } from '../stripe/errors'
import { parseForm } from '../stripe/form'
import { type Payments, publishableView } from '../stripe/payments'
import { publishableSetupView, type SetupIntents } from '../stripe/setup-intents'

/**
 * Serves the fake Stripe.js and the 3-D Secure steps it (or a redirect) goes through. The script is
 * TypeScript under ./browser (type-checked by its own tsconfig with the DOM library), bundled with
 * the emulator's card table into one classic script. Its API base is the origin it was requested
 * from, so it works both from STRIPE_JS_URL and when a test routes https://js.stripe.com here.
 */

const BROWSER_DIR = fileURLToPath(new URL('./browser/', import.meta.url))
/** The free identifier stripe-v3.ts reads its API base from; replaced in the bundle per request. */
const API_BASE_PLACEHOLDER = '__EMULATOR_API_BASE__'

let bundled: { code: string; sources: Array<[file: string, mtimeMs: number]> } | undefined

const mtimeOf = (file: string) => statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? -1

/** The bundle, rebuilt when one of its sources changed so a running dev emulator serves edits. */
async function stripeJsBundle(): Promise<string> {
  if (bundled?.sources.every(([file, mtimeMs]) => mtimeOf(file) === mtimeMs)) return bundled.code
  const result = await build({
    entryPoints: [path.join(BROWSER_DIR, 'stripe-v3.ts')],
    absWorkingDir: BROWSER_DIR,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    charset: 'utf8',
    write: false,
    metafile: true,
    logLevel: 'silent',
  })
  const code = result.outputFiles[0]?.text ?? ''
  if (!code.includes(API_BASE_PLACEHOLDER)) throw new Error('the Stripe.js bundle does not read its API base')
  const sources = Object.keys(result.metafile.inputs).map((input): [string, number] => {
    const file = path.resolve(BROWSER_DIR, input)
    return [file, mtimeOf(file)]
  })
  bundled = { code, sources }
  return code
}

/** A PaymentIntent or a SetupIntent waiting for 3-D Secure, by id. */
interface Challenge {
  clientSecret: string | null
  status: string
  kind: 'payment_intent' | 'setup_intent'
  answer(success: boolean): void
  view(): Record<string, unknown>
}

export function mountStripeJs(
  router: Router,
  api: StripeApi,
  payments: Payments,
  setupIntents: SetupIntents,
): void {
  const challenge = (id: string): Challenge => {
    if (id.startsWith('seti_')) {
      const si = setupIntents.setupIntent(id)
      return {
        clientSecret: si.client_secret,
        status: si.status,
        kind: 'setup_intent',
        answer: (success) => setupIntents.authenticate(si, success),
        view: () => publishableSetupView(api.renderPlain(si)),
      }
    }
    const pi = payments.paymentIntent(id)
    return {
      clientSecret: pi.client_secret,
      status: pi.status,
      kind: 'payment_intent',
      answer: (success) => {
        payments.authenticate(pi, success)
      },
      view: () => publishableView(api.renderPlain(pi)),
    }
  }

  const serveScript = async ({
    req,
    res,
  }: {
    req: Parameters<typeof originOf>[0]
    res: Parameters<typeof sendText>[0]
  }) => {
    const source = (await stripeJsBundle()).replaceAll(API_BASE_PLACEHOLDER, JSON.stringify(originOf(req)))
    sendText(res, 200, source, 'application/javascript; charset=utf-8', { 'cache-control': 'no-store' })
  }
  router.on('GET', '/stripe-js/v3', serveScript)
  // @stripe/stripe-js v10 loads https://js.stripe.com/endive/stripe.js.
  router.on('GET', '/stripe-js/endive/stripe.js', serveScript)

  // Stripe.js finishing (or failing) 3-D Secure for the customer who answered the in-page dialog.
  api.post(
    '/stripe-js/3ds/:id',
    (r) => {
      const found = challenge(r.path.id ?? '')
      const secret = r.params.str('client_secret')
      if (secret === undefined)
        throw invalidRequest('Missing required param: client_secret.', { param: 'client_secret' })
      if (secret !== found.clientSecret) {
        throw invalidRequest(
          `The client_secret provided does not match the client_secret associated with the ${found.kind === 'setup_intent' ? 'SetupIntent' : 'PaymentIntent'}.`,
          {
            param: 'client_secret',
          },
        )
      }
      const result = r.params.oneOf('result', ['success', 'failure'] as const)
      if (!result) throw invalidRequest('Missing required param: result.', { param: 'result' })
      r.params.rejectUnknown()
      found.answer(result === 'success')
      return challenge(r.path.id ?? '').view()
    },
    { publishable: true },
  )

  // The page a `redirect_to_url` next action (server-side confirm with return_url) sends the customer to.
  router.on('GET', '/stripe-js/3ds/:id', ({ res, url, params }) => {
    const id = params.id ?? ''
    const secret = url.searchParams.get('client_secret') ?? ''
    const returnUrl = url.searchParams.get('return_url') ?? ''
    const field = (name: string, value: string) =>
      `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`
    const form = (result: string, label: string) =>
      `<form method="post" action="/stripe-js/3ds/${encodeURIComponent(id)}/redirect">${field('client_secret', secret)}${field('return_url', returnUrl)}${field('result', result)}<button type="submit">${label}</button></form>`
    sendText(
      res,
      200,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authenticate your payment</title></head><body><main><h1>Authenticate your payment</h1><p>EdgeClub's Stripe emulator: test 3-D Secure for ${escapeHtml(id)}.</p>${form('success', 'Complete authentication')}${form('failure', 'Fail authentication')}</main></body></html>`,
      'text/html; charset=utf-8',
    )
  })
  router.on('POST', '/stripe-js/3ds/:id/redirect', ({ res, rawBody, params }) => {
    const form = parseForm(rawBody.toString('utf8'))
    const text = (key: string) => (typeof form[key] === 'string' ? (form[key] as string) : '')
    let status = 'failed'
    let kind: Challenge['kind'] = 'payment_intent'
    try {
      const found = challenge(params.id ?? '')
      kind = found.kind
      if (text('client_secret') !== found.clientSecret) throw new Error('client_secret mismatch')
      if (found.status === 'requires_action') found.answer(text('result') === 'success')
      status = challenge(params.id ?? '').status === 'succeeded' ? 'succeeded' : 'failed'
    } catch (error) {
      return sendText(
        res,
        400,
        error instanceof Error ? error.message : String(error),
        'text/plain; charset=utf-8',
      )
    }
    const returnUrl = text('return_url')
    if (!returnUrl) {
      return sendText(
        res,
        200,
        `Authentication ${status}. You can close this window.`,
        'text/plain; charset=utf-8',
      )
    }
    const target = new URL(returnUrl)
    target.searchParams.set(kind, params.id ?? '')
    target.searchParams.set(`${kind}_client_secret`, text('client_secret'))
    target.searchParams.set('redirect_status', status)
    res.writeHead(303, { location: target.toString(), 'content-length': '0' })
    res.end()
  })
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}
