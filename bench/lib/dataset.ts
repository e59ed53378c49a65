import { createHash } from 'node:crypto'
import pg from 'pg'
import { openDatabase } from '../../apps/api/src/db/database'
import { migrateToLatest } from '../../apps/api/src/db/migrate'
import { seedPlans } from '../../apps/api/src/db/seed'
import { envNumber } from './util'

/**
 * The big dataset: 1,000,000 members and 10,000,000 payments (about 1.1M subscriptions, 250k
 * sessions, 300k Discord links, 100k audit entries) in a PostgreSQL database of its own, on the
 * app's real schema (its migrations), filled by PostgreSQL itself with INSERT … SELECT over
 * generate_series. Every value is a pure function of the row number, so runs see the same data.
 *
 * Indexes and key constraints of the filled tables are read from the catalog after the migrations,
 * dropped for the fill and recreated from those exact definitions after it (building an index once
 * is minutes; maintaining it through 10M random inserts is hours), with the statistics targets the
 * migrations set on index columns. Check constraints stay on, and
 * recreating unique keys and foreign keys validates every row against them.
 *
 * Members sign in with access tokens minted by the bench (no password hashing); their sessions
 * exist in `sessions`, as the auth plugin checks. `bench member n` has id md5('edgeclub-user-n').
 */

export const DATASET_VERSION = 1

export interface DatasetShape {
  members: number
  payments: number
}

export interface BigDataset {
  databaseUrl: string
  shape: DatasetShape
  /** Seconds the fill took (0 when an existing dataset was reused). */
  buildSeconds: number
  reused: boolean
  admin: BenchUser
  /** Members with live sessions for the signed-in benchmark; about 1 in 11 has ~100 payments. */
  members: BenchUser[]
  plans: Record<string, string>
  drop(): Promise<void>
}

export interface BenchUser {
  n: number
  userId: string
  sessionId: string
  email: string
  role: 'member' | 'admin'
}

const DB_NAME = process.env.BENCH_DATABASE_NAME ?? 'edgeclub_bench_big'

/** md5 of a text as a uuid, the way PostgreSQL's md5(text)::uuid writes it. */
export function md5Uuid(text: string): string {
  const hex = createHash('md5').update(text).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

export function shapeFromEnv(): DatasetShape {
  return {
    members: envNumber('BENCH_MEMBERS', 1_000_000),
    payments: envNumber('BENCH_PAYMENTS', 10_000_000),
  }
}

/** The signed-in benchmark's members: 1 in 500 ordinary, plus 1 in 5,000 heavy ones. */
const isBenchMember = (n: number) => n % 500 === 7 || n % 5000 === 0

function benchUsers(shape: DatasetShape): { admin: BenchUser; members: BenchUser[] } {
  const user = (n: number, role: 'member' | 'admin'): BenchUser => ({
    n,
    userId: md5Uuid(`edgeclub-user-${n}`),
    sessionId: md5Uuid(`edgeclub-session-${n}`),
    email: n === 1 ? 'bench.admin@edgeclub.test' : `member${n}`,
    role,
  })
  const members: BenchUser[] = []
  for (let n = 2; n <= shape.members; n++) if (isBenchMember(n)) members.push(user(n, 'member'))
  return { admin: user(1, 'admin'), members }
}

function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}

const FILLED_TABLES = ['users', 'sessions', 'subscriptions', 'payments', 'discord_links', 'audit_log']

const FIRST_NAMES =
  `James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara Richard
  Susan Joseph Jessica Thomas Sarah Charles Karen Christopher Lisa Daniel Nancy Matthew Betty Anthony Sandra Mark
  Margaret Donald Ashley Steven Kimberly Andrew Emily Paul Donna Joshua Michelle Kenneth Carol Kevin Amanda Brian
  Melissa George Deborah Timothy Stephanie Ronald Rebecca Jason Sharon Edward Laura Jeffrey Cynthia Ryan Amy Jacob
  Kathleen Gary Angela Nicholas Shirley Eric Brenda Jonathan Emma Stephen Anna Larry Pamela Justin Nicole Scott
  Samantha Brandon Katherine Benjamin Christine Samuel Helen Gregory Debra Alexander Rachel Patrick Carolyn Frank
  Janet Raymond Maria Jack Olivia Dennis Heather Jerry Diane Tyler Julie Aaron Joyce Jose Victoria Adam Ruth Nathan
  Virginia Henry Lauren Zachary Kelly Douglas Christina Peter Joan Kyle Evelyn Noah Judith Ethan Andrea Jeremy Hannah
  Walter Megan Christian Cheryl Keith Jacqueline Roger Martha Terry Madison Austin Teresa Sean Gloria Gerald Sara
  Carl Janice Harold Ann Dylan Kathryn Arthur Abigail Lawrence Sophia Jordan Frances Jesse Jean Bryan Alice Billy
  Judy Bruce Isabella Gabriel Julia Joe Grace Logan Amber Alan Denise Juan Danielle Albert Marilyn Willie Beverly
  Elijah Charlotte Wayne Natalie Randy Theresa Vincent Diana Mason Brittany Roy Doris Ralph Kayla Bobby Alexis Russell
  Lori Bradley Marie Philip Mateo Kai Yuki Priya Arjun Wei Mohammed Fatima Omar Leila Sven Ingrid Luca Giulia`
    .split(/\s+/)
    .filter(Boolean)

const LAST_NAMES =
  `Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez
  Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis
  Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera
  Campbell Mitchell Carter Roberts Gomez Phillips Evans Turner Diaz Parker Cruz Edwards Collins Reyes Stewart Morris
  Morales Murphy Cook Rogers Gutierrez Ortiz Morgan Cooper Peterson Bailey Reed Kelly Howard Ramos Kim Cox Ward
  Richardson Watson Brooks Chavez Wood James Bennett Gray Mendoza Ruiz Hughes Price Alvarez Castillo Sanders Patel
  Myers Long Ross Foster Jimenez Powell Jenkins Perry Russell Sullivan Bell Coleman Butler Henderson Barnes Gonzales
  Fisher Vasquez Simmons Romero Jordan Patterson Alexander Hamilton Graham Reynolds Griffin Wallace Moreno West Cole
  Hayes Bryant Herrera Gibson Ellis Tran Medina Aguilar Stevens Murray Ford Castro Marshall Owens Harrison Fernandez
  McDonald Woods Washington Kennedy Wells Vargas Henry Chen Freeman Webb Tucker Guzman Burns Crawford Olson Simpson
  Porter Hunter Gordon Mendez Silva Shaw Snyder Mason Dixon Munoz Hunt Hicks Holmes Palmer Wagner Black Robertson
  Boyd Rose Stone Salazar Fox Warren Mills Meyer Rice Schmidt Garza Daniels Ferguson Nichols Stephens Soto Weaver
  Ryan Gardner Payne Grant Dunn Kelley Spencer Hawkins Arnold Pierce Vazquez Hansen Peters Santos Hart Bradley Knight
  Elliott Cunningham Duncan Armstrong Hudson Carroll Lane Riley Andrews Alvarado Ray Delgado Berry Perkins Hoffman
  Johnston Matthews Pena Richards Contreras Willis Carpenter Lawrence Sandoval Guerrero George Chapman Rios Estrada
  Ortega Watkins Greene Nunez Wheeler Valdez Harper Burke Larson Santiago Maldonado Morrison Franklin Carlson Austin
  Dominguez Carr Lawson Jacobs OBrien Lynch Singh Vega Bishop Montgomery Oliver Jensen Harvey Williamson Gilbert Dean
  Sims Espinoza Howell Li Wong Reid Hanson Le McCoy Garrett Burton Fuller Wang Weber Welch Rojas Lucas Marquez Fields
  Park Yang Little Banks Padilla Day Walsh Bowman Schultz Luna Fowler Mejia Davidson Acosta Brewer May Holland Juarez
  Newman Pearson Curtis Cortez Douglas Schneider Joseph Barrett Navarro Figueroa Keller Avila Wade Molina Stanley
  Hopkins Campos Barnett Bates Chambers Caldwell Beck Lambert Miranda Byrd Craig Ayala Lowe Frazier Powers Neal
  Leonard Gregory Carrillo Sutton Fleming Rhodes Shelton Schwartz Norris Jennings Watts Duran Walters Cohen McDaniel
  Moran Parks Steele Vaughn Becker Holt Deleon Barker Terry Hale Leon Hail Benson Haynes Horton Miles Lyons Pham
  Graves Bush Thornton Wolfe Warner Cabrera McKinney Mann Zimmerman Dawson Lara Fletcher Page McCarthy Love Robles
  Cervantes Solis Erickson Reeves Chang Klein Salinas Fuentes Baldwin Daniel Simon Velasquez Hardy Higgins Aguirre
  Lin Cummings Chandler Sharp Barber Bowen Ochoa Dennis Robbins Liu Ramsey Francis Griffith Paul Blair Oconnor
  Cardenas Pacheco Cross Calderon Quinn Moss Swanson Chan Rivas Khan Rodgers Serrano Fitzgerald Rosales Stevenson
  Christensen Manning Gill Curry McLaughlin Harmon McGee Gross Doyle Garner Newton Burgess Reese Walton Blake Trujillo
  Adkins Brady Goodman Roman Webster Goodwin Fischer Huang Potter Delacruz Montoya Todd Wu Hines Mullins Castaneda
  Malone Cannon Tate Mack Sherman Hubbard Hodges Zhang Guerra Wolf Valencia Saunders Franco Rowe Gallagher Farmer
  Hammond Hampton Townsend Ingram Wise Gallegos Clarke Barton Schroeder Maxwell Waters Logan Camacho Strickland
  Norman Person Colon Parsons Frank Harrington Glover Osborne Buchanan Casey Floyd Patton Ibarra Ball Tyler Suarez
  Bowers Orozco Salas Cobb Gibbs Andrade Bauer Conner Moody Escobar McGuire Lloyd Mueller Hartman French Kramer
  McBride Pope Lindsey Velazquez Norton McCormick Sparks Flynn Yates Hogan Marsh Macias Villanueva Zamora Pratt
  Stokes Owen Ballard Lang Brock Villarreal Charles Drake Barrera Cain Patrick Pineda Burnett Mercado Santana Shepherd
  Bautista Ali Shaffer Lamb Trevino McKenzie Hess Beil Olsen Cochran Fuller Hardin Kowalski Novak Dubois Rossi Muller`
    .split(/\s+/)
    .filter(Boolean)

const DOMAINS = [
  'gmail.com',
  'outlook.com',
  'yahoo.com',
  'icloud.com',
  'proton.me',
  'hotmail.com',
  'fastmail.com',
]

/** A uniform integer in [0, mod) from the row number and a salt, computed inside PostgreSQL. */
const h = (column: string, salt: number, mod: number) =>
  `((abs(hashint8extended(${column}, ${salt})) % ${mod})::int)`

async function databaseExists(admin: pg.Client, name: string) {
  const result = await admin.query<{ description: string | null }>(
    'select shobj_description(oid, $2) as description from pg_database where datname = $1',
    [name, 'pg_database'],
  )
  return result.rows[0] ? { description: result.rows[0].description } : null
}

function fingerprint(shape: DatasetShape) {
  return `edgeclub bench dataset v${DATASET_VERSION}: ${shape.members} members, ${shape.payments} payments`
}

/**
 * The dataset, built or (with BENCH_KEEP_DATA=1 and a finished build of the same shape) reused.
 * `drop()` removes it unless BENCH_KEEP_DATA=1.
 */
export async function bigDataset(serverUrl: string, log: (line: string) => void): Promise<BigDataset> {
  const shape = shapeFromEnv()
  const keep = process.env.BENCH_KEEP_DATA === '1'
  const databaseUrl = withDatabase(serverUrl, DB_NAME)
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  let buildSeconds = 0
  let reused = false
  try {
    const existing = await databaseExists(admin, DB_NAME)
    if (keep && existing?.description === fingerprint(shape)) {
      reused = true
      log(`reusing ${DB_NAME} (BENCH_KEEP_DATA=1)`)
      // The app may have gained migrations since: apply them as the server would at start.
      const database = await openDatabase({ databaseUrl })
      // Without the request timeouts: a new migration may build indexes over millions of rows.
      await database.withoutTimeouts((db) => migrateToLatest(db))
      await database.close()
    } else {
      await admin.query(`drop database if exists ${DB_NAME} with (force)`)
      await admin.query(`create database ${DB_NAME}`)
      const started = performance.now()
      await fill(databaseUrl, shape, log)
      await admin.query(`comment on database ${DB_NAME} is '${fingerprint(shape)}'`)
      buildSeconds = Math.round((performance.now() - started) / 1000)
    }
  } finally {
    await admin.end()
  }

  const plans = await planIds(databaseUrl)
  const users = benchUsers(shape)
  return {
    databaseUrl,
    shape,
    buildSeconds,
    reused,
    plans,
    ...users,
    async drop() {
      if (keep) {
        log(`kept ${DB_NAME} (BENCH_KEEP_DATA=1); drop it with: psql -c 'drop database ${DB_NAME}'`)
        return
      }
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      await client.query(`drop database if exists ${DB_NAME} with (force)`)
      await client.end()
      log(`dropped ${DB_NAME}`)
    },
  }
}

async function planIds(databaseUrl: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const { rows } = await client.query<{ slug: string; id: string }>('select slug, id from plans')
  await client.end()
  return Object.fromEntries(rows.map((row) => [row.slug, row.id]))
}

interface SavedDefinitions {
  foreignKeys: { table: string; name: string; definition: string }[]
  keys: { table: string; name: string; definition: string }[]
  indexes: { name: string; definition: string }[]
  /** Statistics targets set on index columns (an index's definition does not carry them). */
  statistics: { index: string; column: number; target: number }[]
}

async function readDefinitions(client: pg.Client): Promise<SavedDefinitions> {
  const tables = FILLED_TABLES.map((table) => `'${table}'::regclass`).join(', ')
  const foreignKeys = await client.query(
    `select conrelid::regclass::text as table, conname as name, pg_get_constraintdef(oid) as definition
     from pg_constraint where contype = 'f' and (conrelid in (${tables}) or confrelid in (${tables}))`,
  )
  const keys = await client.query(
    `select conrelid::regclass::text as table, conname as name, pg_get_constraintdef(oid) as definition
     from pg_constraint where contype in ('p', 'u') and conrelid in (${tables})`,
  )
  const indexes = await client.query(
    `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition
     from pg_index i where i.indrelid in (${tables})
       and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`,
  )
  const statistics = await client.query(
    `select a.attrelid::regclass::text as index, a.attnum as column, a.attstattarget as target
     from pg_index i join pg_attribute a on a.attrelid = i.indexrelid
     where i.indrelid in (${tables}) and a.attstattarget > 0`,
  )
  return {
    foreignKeys: foreignKeys.rows,
    keys: keys.rows,
    indexes: indexes.rows,
    statistics: statistics.rows,
  }
}

async function timed(log: (line: string) => void, label: string, work: () => Promise<unknown>) {
  const started = performance.now()
  await work()
  log(`  ${label}: ${Math.round((performance.now() - started) / 100) / 10} s`)
}

/** Statements run by two connections (two cores), each taking the next one off the queue when free. */
async function inParallel(databaseUrl: string, statements: string[], log: (line: string) => void) {
  const queue = [...statements]
  await Promise.all(
    [0, 1].map(async () => {
      const client = await session(databaseUrl)
      try {
        for (let statement = queue.shift(); statement; statement = queue.shift()) {
          const label = statement.replace(/\s+/g, ' ').slice(0, 100)
          await timed(log, label, () => client.query(statement))
        }
      } finally {
        await client.end()
      }
    }),
  )
}

async function session(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  // This session only: a bulk build, whose loss on a crash costs a rebuild and nothing else.
  await client.query(`set synchronous_commit = off; set maintenance_work_mem = '1GB'; set work_mem = '256MB';
    set max_parallel_maintenance_workers = 0`)
  return client
}

async function fill(databaseUrl: string, shape: DatasetShape, log: (line: string) => void) {
  log(
    `building ${DB_NAME}: ${shape.members.toLocaleString()} members, ${shape.payments.toLocaleString()} payments`,
  )
  const database = await openDatabase({ databaseUrl })
  await migrateToLatest(database.db)
  await seedPlans(database.db)
  await database.close()

  const client = await session(databaseUrl)
  const saved = await readDefinitions(client)
  const plans = await client.query<{ slug: string; id: string; price_minor: number }>(
    'select slug, id, price_minor from plans',
  )
  const plan = (slug: string) => {
    const row = plans.rows.find((p) => p.slug === slug)
    if (!row) throw new Error(`the seeded plans have no "${slug}" plan; the dataset needs updating`)
    return row
  }
  const [weekly, monthly, yearly, lifetime] = ['weekly', 'monthly', 'yearly', 'lifetime'].map(plan) as [
    ReturnType<typeof plan>,
    ReturnType<typeof plan>,
    ReturnType<typeof plan>,
    ReturnType<typeof plan>,
  ]

  await timed(log, 'dropped keys and indexes of the filled tables, turned their triggers off', async () => {
    // The app's own triggers (rollup tallies, change announcements) would see every bulk row; they
    // are off for the fill and the rollups are computed once afterwards (rebuild_rollups()).
    for (const table of FILLED_TABLES) await client.query(`alter table ${table} disable trigger user`)
    for (const fk of saved.foreignKeys)
      await client.query(`alter table ${fk.table} drop constraint ${fk.name}`)
    for (const key of saved.keys) await client.query(`alter table ${key.table} drop constraint ${key.name}`)
    for (const index of saved.indexes) await client.query(`drop index ${index.name}`)
  })
  await client.end()

  const M = shape.members
  const P = shape.payments
  const firsts = `array[${FIRST_NAMES.map((n) => `'${n}'`).join(',')}]`
  const lasts = `array[${LAST_NAMES.map((n) => `'${n}'`).join(',')}]`
  const domains = `array[${DOMAINS.map((d) => `'${d}'`).join(',')}]`
  // Days since member n joined: the oldest joined two years ago, the newest today.
  const ageDays = (n: string) => `(730.0 * (1 - (${n})::float8 / ${M}))`
  const userId = (n: string) => `md5('edgeclub-user-' || (${n}))::uuid`
  const planCase = (bucket: string) =>
    `(case ${bucket} when 0 then '${weekly.id}' when 1 then '${monthly.id}' when 2 then '${monthly.id}' else '${yearly.id}' end)::uuid`
  const priceCase = (bucket: string) =>
    `(case ${bucket} when 0 then ${weekly.price_minor} when 1 then ${monthly.price_minor} when 2 then ${monthly.price_minor} else ${yearly.price_minor} end)`

  const users = (from: number, to: number) => `insert into users (id, email, email_normalized, password_hash,
      first_name, last_name, discord_username, trading_interests, email_updates, agreed_terms_at, age_confirmed_at,
      role, disabled_at, created_at, updated_at, stripe_customer_id)
    select ${userId('n')}, email, lower(email), '$bench$no-password', first, last,
      lower(first) || '_' || lower(last) || (n % 997), case when ${h('n', 5, 3)} = 0 then 'sports, crypto' end,
      ${h('n', 6, 4)} = 0, created, created, case when n <= 5 then 'admin' else 'member' end,
      case when ${h('n', 7, 200)} = 0 and n % 500 <> 7 and n % 5000 <> 0 and n > 5 then created + interval '30 days' end,
      created, created, case when ${h('n', 8, 10)} < 7 then 'cus_bench' || n end
    from (select n, first, last,
        case when n = 1 then 'bench.admin@edgeclub.test'
          else (case when ${h('n', 9, 10)} = 0 then first || '.' || last else lower(first) || '.' || lower(last) end)
            || n || '@' || (${domains})[1 + ${h('n', 10, DOMAINS.length)}] end as email,
        now() - make_interval(secs => ${ageDays('n')} * 86400 + ${h('n', 11, 86400)}) as created
      from (select n, (${firsts})[1 + ${h('n', 1, FIRST_NAMES.length)}] as first,
          (${lasts})[1 + ${h('n', 2, LAST_NAMES.length)}] as last
        from generate_series(${from}, ${to}) n) named) u`

  // The current subscription of 94% of members (b = their bucket), and an older ended one of 15%.
  const subscriptions = (
    from: number,
    to: number,
  ) => `insert into subscriptions (user_id, plan_id, provider, status,
      start_date, end_date, grace_until, cancel_at_period_end, cancelled_at, ended_at, stripe_subscription_id,
      created_at, updated_at)
    select ${userId('n')}, plan_id, provider, status, start_date, end_date, grace_until, cancel_at_period_end,
      cancelled_at, ended_at, case when provider = 'stripe' and plan_id <> '${lifetime.id}' then 'sub_bench' || n || 'a' end,
      start_date, start_date
    from (select n, b,
        case when b between 350 and 399 then '${lifetime.id}'::uuid when n % 100 = 0 then '${weekly.id}'::uuid
          else ${planCase(h('n', 22, 4))} end as plan_id,
        case when b between 830 and 899 or b between 385 and 399 or (b >= 430 and b < 830 and b % 7 = 0) then 'crypto'
          when b between 900 and 939 then 'admin' else 'stripe' end as provider,
        case when b < 400 or b >= 830 then 'active' when b < 430 then 'past_due' when b < 530 then 'cancelled'
          else 'expired' end as status,
        start_date,
        case when b between 350 and 399 then null
          when b < 350 or b >= 830 then now() + make_interval(days => 1 + ${h('n', 23, 365)})
          when b < 430 then now() - make_interval(days => ${h('n', 24, 3)})
          else start_date + (now() - start_date) * (0.2 + ${h('n', 25, 80)} / 100.0) end as end_date,
        case when b between 400 and 429 then now() + make_interval(days => 1 + ${h('n', 26, 3)}) end as grace_until,
        b < 350 and ${h('n', 27, 10)} = 0 as cancel_at_period_end,
        case when b between 430 and 529 then start_date + (now() - start_date) * 0.5 end as cancelled_at,
        case when b >= 430 and b < 830 then start_date + (now() - start_date) * (0.2 + ${h('n', 25, 80)} / 100.0) end as ended_at
      from (select n, ${h('n', 21, 1000)} as b,
          now() - make_interval(secs => ${ageDays('n')} * 86400 * (0.05 + ${h('n', 28, 95)} / 100.0)) as start_date
        from generate_series(${from}, ${to}) n) s
      where b < 940) x
    union all
    select ${userId('n')}, ${planCase(h('n', 31, 4))}, 'stripe', 'expired', start_date,
      start_date + interval '30 days', null, false, null, start_date + interval '30 days', 'sub_bench' || n || 'b',
      start_date, start_date
    from (select n, now() - make_interval(secs => ${ageDays('n')} * 86400 * 0.9) as start_date
      from generate_series(${from}, ${to}) n where ${h('n', 32, 100)} < 15 and ${ageDays('n')} > 40) o`

  // Payment g belongs to member n: the first 90% spread evenly (a bijection of g mod M), the last
  // 10% over the heavy payers. Kind, provider, status, amount, currency and date come from hashes.
  const even = Math.round(P * 0.9)
  const heavyCount = Math.floor(M / 100)
  const payments = (
    from: number,
    to: number,
  ) => `insert into payments (user_id, plan_id, kind, provider, status,
      amount_minor, amount_refunded_minor, currency, message, failure_message, stripe_payment_intent_id,
      stripe_invoice_id, stripe_subscription_id, stripe_charge_id, btcpay_invoice_id, checkout_url, expires_at,
      created_at, updated_at, completed_at)
    select ${userId('n')}, plan_id, kind, provider, status, amount,
      case when status = 'refunded' then amount when status = 'partially_refunded' then amount / 2 else 0 end,
      currency, case when kind = 'tip' and ${h('g', 41, 4)} = 0 then 'Great calls this week' end,
      case when status = 'failed' then 'Your card was declined.' end,
      case when provider = 'stripe' and kind in ('lifetime', 'tip') then 'pi_bench' || g end,
      case when provider = 'stripe' and kind in ('subscription', 'renewal') then 'in_bench' || g end,
      case when provider = 'stripe' and kind in ('subscription', 'renewal') then 'sub_bench' || n || 'a' end,
      case when provider = 'stripe' and status in ('completed', 'refunded', 'partially_refunded') then 'ch_bench' || g end,
      case when provider = 'crypto' then 'btc_bench' || g end,
      case when provider = 'crypto' then 'https://btcpay.example/i/btc_bench' || g end,
      case when provider = 'crypto' then created + interval '15 minutes' end,
      created, created,
      case when status in ('completed', 'refunded', 'partially_refunded') then created + interval '4 seconds' end
    from (select g, n, kind, provider, created,
        case when kind = 'grant' then 'completed'
          when s < 880 then 'completed' when s < 930 then 'failed' when s < 950 then 'refunded'
          when s < 955 then 'partially_refunded'
          when s < 975 or (kind in ('subscription', 'lifetime') and g > ${M}) then 'cancelled'
          else 'pending' end as status,
        case when kind = 'tip' then null when kind = 'lifetime' then '${lifetime.id}'::uuid
          when n % 100 = 0 then '${weekly.id}'::uuid else ${planCase('pb')} end as plan_id,
        case when kind = 'tip' then 100 * (1 + ${h('g', 42, 100)}) when kind = 'grant' then 0
          when kind = 'lifetime' then ${lifetime.price_minor} when n % 100 = 0 then ${weekly.price_minor}
          else ${priceCase('pb')} end as amount,
        case when kind = 'tip' and c >= 80 then (array['EUR','GBP','CAD','AUD'])[1 + c % 4] else 'USD' end as currency
      from (select g, n, s, c, pb,
          case when k < 600 then 'renewal' when k < 750 then 'subscription' when k < 780 then 'lifetime'
            when k < 950 then 'tip' else 'grant' end as kind,
          case when k >= 950 then 'admin' when ${h('g', 43, 100)} < 13 then 'crypto' else 'stripe' end as provider,
          now() - make_interval(secs => ${ageDays('n')} * 86400 * (${h('g', 44, 100000)} / 100000.0)) as created
        from (select g,
            case when g <= ${even} then 1 + (((g - 1) % ${M})::bigint * 48271) % ${M}
              else 100 * (1 + (g - 1) % ${heavyCount}) end as n,
            ${h('g', 45, 1000)} as k, ${h('g', 46, 1000)} as s, ${h('g', 47, 100)} as c, ${h('g', 48, 4)} as pb
          from generate_series(${from}, ${to}) g) raw) typed) p`

  // A live session for a quarter of the members, the admin and every bench member (never revoked).
  const sessions = `insert into sessions (id, user_id, remember, user_agent, ip, created_at, last_used_at, revoked_at, revoke_reason)
    select md5('edgeclub-session-' || n)::uuid, ${userId('n')}, ${h('n', 51, 2)} = 0,
      'Mozilla/5.0 (bench)', '198.18.' || (n % 250) || '.' || (n % 200 + 1), now() - make_interval(days => ${h('n', 52, 30)}),
      now() - make_interval(mins => ${h('n', 53, 10000)}),
      case when ${h('n', 54, 20)} = 0 and n % 500 <> 7 and n % 5000 <> 0 and n <> 1 then now() end,
      case when ${h('n', 54, 20)} = 0 and n % 500 <> 7 and n % 5000 <> 0 and n <> 1 then 'logout' end
    from generate_series(1, ${M}) n where n % 4 = 0 or n = 1 or n % 500 = 7`

  const discordLinks = `insert into discord_links (user_id, discord_user_id, state, role_granted, banned_at, last_synced_at, updated_at)
    select ${userId('n')}, (100000000000000000 + n)::text, state, state = 'joined' and b < 400, 
      case when state = 'banned' then now() - interval '10 days' end, now() - make_interval(hours => ${h('n', 61, 48)}), now()
    from (select n, ${h('n', 21, 1000)} as b,
        (array['joined','joined','joined','joined','joined','invited','removed','removed','kicked','banned'])[1 + ${h('n', 62, 10)}] as state
      from generate_series(1, ${M}) n where ${h('n', 63, 100)} < 30) d`

  const audit = `insert into audit_log (actor_id, actor_email, action, target_type, target_id, outcome, details, created_at)
    select ${userId('1 + i % 5')}, 'admin' || (1 + i % 5) || '@edgeclub.test',
      (array['user.grant','payment.refund','user.disable','user.enable','plan.update','user.role'])[1 + ${h('i', 71, 6)}],
      'user', ${userId(`1 + ${h('i', 72, M)}`)}::text, case when ${h('i', 73, 50)} = 0 then 'failure' else 'success' end,
      '{"days": 30}'::jsonb, now() - make_interval(mins => ${h('i', 74, 730 * 1440)})
    from generate_series(1, 100000) i`

  const halfM = Math.floor(M / 2)
  const halfP = Math.floor(P / 2)
  // Largest first, so the two connections finish together. Nothing references anything yet.
  log('filling (two connections):')
  await inParallel(
    databaseUrl,
    [
      payments(1, halfP),
      payments(halfP + 1, P),
      users(1, halfM),
      users(halfM + 1, M),
      subscriptions(1, halfM),
      subscriptions(halfM + 1, M),
      sessions,
      discordLinks,
      audit,
    ],
    log,
  )

  // Keys and indexes (payments' first: the biggest), then foreign keys, which need the keys.
  log('recreating keys and indexes (two connections):')
  const keyAndIndexStatements = [
    ...saved.keys.map((k) => ({
      table: k.table,
      sql: `alter table ${k.table} add constraint ${k.name} ${k.definition}`,
    })),
    ...saved.indexes.map((i) => ({
      table: /ON (?:public\.)?(\w+)/.exec(i.definition)?.[1] ?? '',
      sql: i.definition,
    })),
  ].sort((a, b) => Number(b.table === 'payments') - Number(a.table === 'payments'))
  await inParallel(
    databaseUrl,
    keyAndIndexStatements.map((s) => s.sql),
    log,
  )
  await inParallel(
    databaseUrl,
    saved.foreignKeys.map((fk) => `alter table ${fk.table} add constraint ${fk.name} ${fk.definition}`),
    log,
  )
  const finish = await session(databaseUrl)
  for (const { index, column, target } of saved.statistics)
    await finish.query(`alter index ${index} alter column ${column} set statistics ${target}`)
  for (const table of FILLED_TABLES) await finish.query(`alter table ${table} enable trigger user`)
  // The rollups the triggers keep (totals, analytics), computed from the filled tables at once.
  const rebuild = await finish.query(`select 1 from pg_proc where proname = 'rebuild_rollups'`)
  if (rebuild.rowCount) await timed(log, 'rollups', () => finish.query('select rebuild_rollups()'))
  await timed(log, 'vacuum analyze', () => finish.query('vacuum analyze'))
  const counts = await finish.query(
    `select (select count(*) from users) as users, (select count(*) from payments) as payments,
       (select count(*) from subscriptions) as subscriptions, (select count(*) from sessions) as sessions,
       pg_size_pretty(pg_database_size(current_database())) as size`,
  )
  log(`  ${JSON.stringify(counts.rows[0])}`)
  await finish.end()
}
