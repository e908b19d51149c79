/** Spec §6: a flag is true for true, 1, yes or on (case-insensitive, trimmed), false otherwise. */
export function parseFlag(value: unknown): boolean {
  if (value === true || value === 1) return true
  if (typeof value !== 'string') return false
  return ['true', '1', 'yes', 'on'].includes(value.trim().toLowerCase())
}

export type BuildFlags = { mobileSync: boolean; adminMockDirectory: boolean; adminAutoSession: boolean }

/** Spec §6 "Build-time flags", from a Vite env object. */
export function readBuildFlags(env: Record<string, unknown> | undefined): BuildFlags {
  return {
    mobileSync: parseFlag(env?.VITE_MOBILE_SYNC),
    adminMockDirectory: parseFlag(env?.VITE_ADMIN_MOCK_DIRECTORY),
    adminAutoSession: parseFlag(env?.VITE_ADMIN_AUTO_SESSION),
  }
}

// import.meta.env exists under Vite and vitest only; plain Node (scripts, the built server) has none.
export const buildFlags: BuildFlags = readBuildFlags((import.meta as { env?: Record<string, unknown> }).env)

/** Spec §4 "Sync": the keys of the session's feature flags that switch mobile sync, in order. */
const MOBILE_SYNC_KEYS = ['mobileSync', 'web.mobileSync', 'features.mobileSync'] as const

/**
 * Spec §4: mobile sync follows the first of its keys the session's feature flags carry, flat
 * (`"web.mobileSync": true`) or nested (`web: { mobileSync: true }`), else the build-time default.
 */
export function isMobileSyncEnabled(
  featureFlags: Record<string, unknown> | null | undefined,
  buildDefault: boolean = buildFlags.mobileSync,
): boolean {
  for (const key of MOBILE_SYNC_KEYS) {
    const value = lookup(featureFlags, key)
    if (value !== undefined && value !== null) return parseFlag(value)
  }
  return buildDefault
}

function lookup(flags: Record<string, unknown> | null | undefined, key: string): unknown {
  if (!flags) return undefined
  if (Object.hasOwn(flags, key)) return flags[key]
  let current: unknown = flags
  for (const part of key.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, part)) return undefined
    current = (current as Record<string, unknown>)[part]
  }
  return current
}
