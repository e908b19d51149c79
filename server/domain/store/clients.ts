import type { StoreKey } from '~/lib/store/types'
import { appleClient } from './apple'
import { googleClient } from './google'
import type { StoreConfig } from './store-config'
import type { StoreClient } from './store-facts'

/**
 * The configured stores' clients, made once per configuration (Google's access token is kept in
 * its client until it expires; each instance of the portal gets its own, which Google allows).
 */
const made = new WeakMap<StoreConfig, Partial<Record<StoreKey, StoreClient>>>()

export function storeClient(config: StoreConfig, store: StoreKey): StoreClient | undefined {
  let clients = made.get(config)
  if (!clients) {
    clients = {
      ...(config.apple && { apple: appleClient(config.apple, config.timeoutMs) }),
      ...(config.google && { google: googleClient(config.google, config.timeoutMs) }),
    }
    made.set(config, clients)
  }
  return clients[store]
}

export function configuredStores(config: StoreConfig): Record<StoreKey, boolean> {
  return { apple: config.apple !== undefined, google: config.google !== undefined }
}
