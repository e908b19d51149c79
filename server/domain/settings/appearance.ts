import { eq } from 'drizzle-orm'
import { userSettings } from '#server/db/schema-settings'
import { recordAuditIn } from '#server/domain/audit'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import { checkPalette, DEFAULT_APPEARANCE, isHexColour, normaliseHex, withDefaults, type Appearance, type Palette, BASE_MODES, PALETTE_COLOURS, THEMES } from '~/lib/appearance'
import type { AppearanceSettings } from '~/lib/settings/appearance'

/**
 * The account's appearance (spec §3 "Appearance settings"; docs/settings-appearance-notifications.md):
 * one per person, whatever the organisation, in user_settings. Each device keeps its own override
 * in a cookie (spec §9); this is what a device without one starts from.
 */

export type AppearancePatch = {
  theme?: Appearance['theme'] | undefined
  highContrast?: boolean | undefined
  useSystemTheme?: boolean | undefined
  customPalette?: Partial<Palette> | undefined
}

export type AppearanceMeta = { ip?: string | undefined; correlationId?: string | undefined }

/** A stored value read defensively: what is not a valid appearance field falls back to its default. */
export function storedAppearance(value: Record<string, unknown> | null | undefined): Appearance | null {
  if (!value) return null
  const palette = typeof value.customPalette === 'object' && value.customPalette !== null ? (value.customPalette as Record<string, unknown>) : {}
  const customPalette: Partial<Palette> = {}
  if (BASE_MODES.includes(palette.baseMode as Palette['baseMode'])) customPalette.baseMode = palette.baseMode as Palette['baseMode']
  for (const name of PALETTE_COLOURS) {
    const colour = palette[name]
    if (isHexColour(colour)) customPalette[name] = normaliseHex(colour)
  }
  return withDefaults({
    theme: THEMES.includes(value.theme as Appearance['theme']) ? (value.theme as Appearance['theme']) : undefined,
    highContrast: typeof value.highContrast === 'boolean' ? value.highContrast : undefined,
    useSystemTheme: typeof value.useSystemTheme === 'boolean' ? value.useSystemTheme : undefined,
    customPalette,
  })
}

function settingsOf(appearance: Appearance | null, updatedAt: Date | null): AppearanceSettings {
  const effective = appearance ?? DEFAULT_APPEARANCE
  return { appearance: effective, saved: appearance !== null, contrast: checkPalette(effective.customPalette), updatedAtUtc: updatedAt?.toISOString() ?? null }
}

async function readRow(ctx: DomainContext) {
  const [row] = await ctx.tx
    .select({ appearance: userSettings.appearance, updatedAt: userSettings.updatedAt })
    .from(userSettings)
    .where(eq(userSettings.userId, ctx.actor.userId))
    .limit(1)
  return row
}

/** GET /api/settings/appearance. */
export async function getAppearance(ctx: DomainContext): Promise<AppearanceSettings> {
  const row = await readRow(ctx)
  const appearance = storedAppearance(row?.appearance)
  return settingsOf(appearance, appearance ? (row?.updatedAt ?? null) : null)
}

/** PATCH /api/settings/appearance: the fields sent replace the saved ones (the defaults when nothing was saved yet). */
export async function patchAppearance(ctx: DomainContext, patch: AppearancePatch, meta: AppearanceMeta = {}): Promise<AppearanceSettings> {
  const row = await readRow(ctx)
  const before = storedAppearance(row?.appearance) ?? DEFAULT_APPEARANCE
  const next: Appearance = {
    theme: patch.theme ?? before.theme,
    highContrast: patch.highContrast ?? before.highContrast,
    useSystemTheme: patch.useSystemTheme ?? before.useSystemTheme,
    customPalette: { ...before.customPalette, ...definedOnly(patch.customPalette ?? {}) },
  }
  await ctx.tx
    .insert(userSettings)
    .values({ userId: ctx.actor.userId, appearance: next, updatedAt: ctx.now })
    .onConflictDoUpdate({ target: userSettings.userId, set: { appearance: next, updatedAt: ctx.now } })
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'settings.appearance.changed',
    targetType: 'user',
    targetId: ctx.actor.userId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: { from: row ? before : null, to: next },
    at: ctx.now,
  })
  await recordChange(ctx, 'UserSettings', ctx.actor.userId, 'Updated')
  return settingsOf(next, ctx.now)
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
