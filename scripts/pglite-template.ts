import { buildPgliteTemplate } from '../apps/api/src/cli/pglite-template'

/** `npm run build` (and the bench) build the embedded database's template once per schema. */
const file = await buildPgliteTemplate()
console.log(`embedded database template: ${file}`)
