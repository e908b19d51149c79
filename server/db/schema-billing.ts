/**
 * Billing (issue 16): checkout sessions and the payment provider's webhook events.
 */
export const billingTenantTables: string[] = []
