import { eq } from 'drizzle-orm'
import { userSettings } from '#server/db/schema-settings'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { SettingsOverview } from '~/lib/settings/settings'
import { getAdminSettings } from '../config/organisation-switches'
import { getSite } from './site'
import { getUserSettings } from './user'

/** GET /api/settings (issue 14): what every settings tab needs, in one call. */
export async function settingsOverview(ctx: DomainContext): Promise<SettingsOverview> {
  const [saved] = await ctx.tx.select({ appearance: userSettings.appearance }).from(userSettings).where(eq(userSettings.userId, ctx.actor.userId))
  return {
    user: await getUserSettings(ctx),
    site: await getSite(ctx),
    admin: ctx.actor.roleKey === 'admin' ? await getAdminSettings(ctx) : null,
    appearance: saved?.appearance ?? null,
  }
}
