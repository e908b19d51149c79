/**
 * Sign-in through an identity provider (issue 16): OpenID Connect flows in progress and the identities linked to accounts.
 */
export const oidcTenantTables: string[] = []
