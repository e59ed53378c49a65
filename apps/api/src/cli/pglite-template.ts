import { buildPgliteTemplate } from './build-pglite-template'

/**
 * Run by `npm run build` from the build itself (apps/api/dist/pglite-template.js): the built server's
 * template of a new embedded database, keyed by the built code's own migration fingerprint.
 */
const directory = await buildPgliteTemplate()
console.log(`embedded database template: ${directory}`)
