/**
 * The one UUID check of the portal, shared by the server and the screens: ids in paths and
 * queries are matched against it before they reach the database (PostgreSQL refuses a malformed
 * uuid with an error, which would be a 500), and screens use it to tell an id from other text.
 * Any version, either case, as PostgreSQL's uuid type accepts them.
 */
export const UUID_SOURCE = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'

export const UUID_PATTERN = new RegExp(`^${UUID_SOURCE}$`, 'i')

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value)
}
