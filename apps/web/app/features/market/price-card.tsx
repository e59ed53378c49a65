import {
  type CryptoPrice,
  formatPercentChange,
  formatUsdPrice,
  messages,
  PRICE_REFRESH_MS,
  placeholderPrices,
  site,
} from '@edgeclub/shared'
import { RefreshIcon } from '../../components/ui/icons'
import { defineIsland } from '../../lib/island'
import { useRemoteData } from '../../lib/use-remote-data'
import { fetchMarketPrices, formatUpdateTime } from './market-api'

function PriceRow({ price, pending }: { price: CryptoPrice; pending: boolean }) {
  const up = price.price_change_percentage_24h >= 0
  return (
    <li className="flex items-center justify-between gap-3 py-3">
      <div className="flex items-center gap-3">
        <span className="flex h-10 w-10 items-center justify-center rounded-full bg-slate-800 text-xs font-bold text-emerald-300">
          {price.symbol.toUpperCase()}
        </span>
        <span className="font-medium text-white">{price.name}</span>
      </div>
      {pending ? (
        <span className="h-5 w-28 animate-pulse rounded bg-slate-800" aria-hidden="true" />
      ) : (
        <div className="text-right">
          <p className="font-semibold tabular-nums text-white">{formatUsdPrice(price.current_price)}</p>
          <p className={`text-sm font-medium tabular-nums ${up ? 'text-emerald-300' : 'text-rose-300'}`}>
            <span className="sr-only">24h change </span>
            {formatPercentChange(price.price_change_percentage_24h)}
          </p>
        </div>
      )}
    </li>
  )
}

/**
 * The live price card: loading, loaded and error states; a silent refresh every 30 seconds;
 * placeholder items when the first load fails; the static 'AI 95% Accuracy' tile.
 */
function PriceCard({ aiAccuracy = site.figures.aiAccuracy }: { aiAccuracy?: string }) {
  const { status, data, error, reload } = useRemoteData(fetchMarketPrices, { refreshMs: PRICE_REFRESH_MS })
  const pending = status === 'loading' && !data
  // Before the first answer the rows keep their place (no layout shift); after a first failure they show zeros.
  const prices: CryptoPrice[] = data?.prices ?? placeholderPrices()

  return (
    <section
      aria-labelledby="live-prices-heading"
      className="rounded-2xl border border-slate-800 bg-slate-900/80 p-5 shadow-xl sm:p-6"
    >
      <div className="flex items-center justify-between">
        <h2 id="live-prices-heading" className="text-lg font-semibold text-white">
          Live Crypto Prices
        </h2>
        <button
          type="button"
          onClick={() => reload()}
          disabled={status === 'loading'}
          className="flex items-center gap-1.5 rounded-md px-2.5 py-1.5 text-sm text-slate-300 hover:bg-slate-800 hover:text-white focus-visible:outline-2 focus-visible:outline-emerald-300 disabled:opacity-60"
        >
          <RefreshIcon className={`h-4 w-4 ${status === 'loading' ? 'animate-spin' : ''}`} />
          Refresh
        </button>
      </div>
      <ul className="mt-2 divide-y divide-slate-800" aria-busy={pending}>
        {prices.map((price) => (
          <PriceRow key={price.id} price={price} pending={pending} />
        ))}
      </ul>
      <p className="mt-3 min-h-5 text-xs text-slate-400" role="status" aria-live="polite">
        {status === 'loading' ? (
          messages.prices.loading
        ) : status === 'error' ? (
          <span className="text-rose-300">Error: {error}</span>
        ) : data ? (
          `Updated: ${formatUpdateTime(data.updatedAt)}${data.stale ? ' (delayed)' : ''}`
        ) : null}
      </p>
      <div className="mt-4 flex items-center justify-between rounded-xl bg-emerald-400/10 px-4 py-3 ring-1 ring-emerald-400/30">
        <p className="text-sm font-semibold text-emerald-200">
          AI <span data-claim="aiAccuracy">{aiAccuracy}</span> Accuracy
        </p>
        <p className="text-xs text-emerald-200/80">on tracked signals</p>
      </div>
    </section>
  )
}

export const priceCardIsland = defineIsland('price-card', PriceCard)
