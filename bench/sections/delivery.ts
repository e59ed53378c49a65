import { atMost, pending } from '../lib/figures'
import type { Section } from '../lib/section'

/**
 * Publish → delivery: p99 from an analyst publishing a signal to each of 1,000 live members
 * receiving it. The signal room does not exist yet; when it does, this section connects 1,000
 * members (tokens minted as in signed-in.ts), publishes, and records each arrival.
 */
export const deliverySection: Section = {
  name: 'delivery',
  title: 'signal publish → delivery to 1,000 live members',
  async run() {
    return {
      figures: [
        pending(
          'delivery.p99',
          'publish → delivery p99, 1,000 live members',
          'not measured yet: no signal room (hook: bench/sections/delivery.ts)',
          {
            unit: 's',
            goal: atMost(1),
          },
        ),
      ],
    }
  },
}
