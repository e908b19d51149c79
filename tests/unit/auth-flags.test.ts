import { expect, test } from 'vitest'
import { buildFlags, isMobileSyncEnabled, parseFlag, readBuildFlags } from '~/lib/auth/flags'

test('a flag is true for true, 1, yes or on, in any case, trimmed', () => {
  for (const value of [true, 1, 'true', 'TRUE', ' 1 ', 'yes', 'Yes', 'on', ' ON ']) expect(parseFlag(value), String(value)).toBe(true)
})

test('a flag is false for anything else', () => {
  for (const value of [false, 0, 2, '', 'false', '0', 'no', 'off', 'enabled', 'y', null, undefined, {}]) {
    expect(parseFlag(value), String(value)).toBe(false)
  }
})

test('build flags are read from the VITE_ variables', () => {
  expect(readBuildFlags({ VITE_MOBILE_SYNC: 'on', VITE_ADMIN_MOCK_DIRECTORY: '0', VITE_ADMIN_AUTO_SESSION: 'yes' })).toEqual({
    mobileSync: true,
    adminMockDirectory: false,
    adminAutoSession: true,
  })
  expect(readBuildFlags(undefined)).toEqual({ mobileSync: false, adminMockDirectory: false, adminAutoSession: false })
})

test('build flags are off when the environment sets none', () => {
  expect(buildFlags).toEqual({ mobileSync: false, adminMockDirectory: false, adminAutoSession: false })
})

test('mobile sync follows mobileSync, web.mobileSync or features.mobileSync, in that order', () => {
  expect(isMobileSyncEnabled({ mobileSync: true })).toBe(true)
  expect(isMobileSyncEnabled({ 'web.mobileSync': 'yes' })).toBe(true)
  expect(isMobileSyncEnabled({ 'features.mobileSync': 'ON' })).toBe(true)
  expect(isMobileSyncEnabled({ web: { mobileSync: true } })).toBe(true)
  expect(isMobileSyncEnabled({ features: { mobileSync: '1' } })).toBe(true)
  expect(isMobileSyncEnabled({ mobileSync: false, 'web.mobileSync': true })).toBe(false)
  expect(isMobileSyncEnabled({ mobileSync: 'off' }, true)).toBe(false)
})

test('mobile sync falls back to the build default, off unless given', () => {
  expect(isMobileSyncEnabled({})).toBe(false)
  expect(isMobileSyncEnabled(undefined)).toBe(false)
  expect(isMobileSyncEnabled({ other: true }, true)).toBe(true)
  expect(isMobileSyncEnabled({ mobileSync: null }, true)).toBe(true)
})
