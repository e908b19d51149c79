/**
 * Store subscriptions (issue 16): link codes and subscriptions bought in a mobile app store.
 */
export const storeTenantTables: string[] = []
