import type { EtsyAuth } from "./auth.js"
import type { Faults } from "./faults.js"
import type { Quota } from "./quota.js"
import type { EtsyShop } from "./store.js"
import type { Webhooks } from "./webhooks.js"

/**
 * The shops of the simulator. One app (one keystring and shared secret, one webhook endpoint) may be
 * authorised by several sellers, each for their shop: every shop has its seller's OAuth grant (tokens
 * `<user_id>.<token>`), its receipts, and its own rate limits, since Etsy counts private calls per
 * OAuth access token (store-apis.md §0); the app's public calls (getShop, getShippingCarriers) count
 * against its API key.
 */
export interface SimShop {
  readonly shopId: number
  readonly userId: number
  /** Where the shop ships from (getShop's `shipping_from_country_iso`). */
  readonly country: string
  /** The refresh token valid at start. */
  readonly refreshToken: string
  readonly shop: EtsyShop
  readonly auth: EtsyAuth
  /** The limits of this seller's access tokens. */
  readonly quota: Quota
}

/** How answers are written (views.ts) and which bodies are taken. */
export interface Switches {
  htmlEntities: boolean
  buyerEmailVisible: boolean
  acceptJson: boolean
  acceptForm: boolean
}

/** What the shops share: the app's fault rules, webhooks, switches, and the limits of its public calls. */
export interface AppParts {
  readonly faults: Faults
  readonly webhooks: Webhooks
  readonly switches: Switches
  readonly defaultSwitches: Switches
  readonly appQuota: Quota
}

export class SimShops {
  constructor(readonly all: ReadonlyArray<SimShop>) {}

  /** The first shop: the one `/__sim/…` admin routes and the running simulator's own fields describe. */
  get primary(): SimShop {
    return this.all[0]!
  }

  byShopId(shopId: number): SimShop | undefined {
    return this.all.find((s) => s.shopId === shopId)
  }

  /** The shop whose seller a token (`<user_id>.<…>`) belongs to. */
  byToken(token: string | undefined): SimShop | undefined {
    const userId = /^(\d+)\./.exec(token ?? "")?.[1]
    return userId === undefined ? undefined : this.all.find((s) => String(s.userId) === userId)
  }

  /** Every shop back as at start (receipts, grants, limits). */
  reset(): void {
    for (const s of this.all) {
      s.shop.reset()
      s.auth.reset()
      s.quota.reset()
    }
  }

  /** One clock for all: every shop's moves together. */
  readonly clock = {
    advanceClock: (seconds: number): void => {
      for (const s of this.all) s.shop.advanceClock(seconds)
    },
    now: (): number => this.primary.shop.now()
  }
}
