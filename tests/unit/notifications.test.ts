import { describe, expect, test } from 'vitest'
import { badgeText, bellLabel, isPortalPath, NOTIFICATION_KINDS, PREFERENCE_OF_KIND } from '~/lib/notifications'
import { IN_APP_EVENTS } from '~/lib/settings/notifications'

/** The bell's rules and which preference decides each kind (app/lib/notifications.ts). */
describe('the bell', () => {
  test('no badge for none, the number up to 99, then 99+', () => {
    expect(badgeText(0)).toBeNull()
    expect(badgeText(-3)).toBeNull()
    expect(badgeText(Number.NaN)).toBeNull()
    expect(badgeText(1)).toBe('1')
    expect(badgeText(99)).toBe('99')
    expect(badgeText(100)).toBe('99+')
  })

  test('its accessible name says the count in words', () => {
    expect(bellLabel(0)).toBe('Notifications, none unread')
    expect(bellLabel(1)).toBe('Notifications, 1 unread')
    expect(bellLabel(250)).toBe('Notifications, more than 99 unread')
  })
})

describe('kinds and preferences', () => {
  test('every kind is decided by one in-app choice, and every choice decides a kind', () => {
    for (const kind of NOTIFICATION_KINDS) expect(IN_APP_EVENTS).toContain(PREFERENCE_OF_KIND[kind])
    expect(new Set(Object.values(PREFERENCE_OF_KIND))).toEqual(new Set(IN_APP_EVENTS))
    expect(PREFERENCE_OF_KIND['review-assigned']).toBe('reviewTask')
    expect(PREFERENCE_OF_KIND['review-due']).toBe('reviewTask')
  })

  test('a notification links only within the portal', () => {
    expect(isPortalPath('/items/1')).toBe(true)
    expect(isPortalPath('/doc-control/workflows/1?projectId=2')).toBe(true)
    for (const link of ['https://elsewhere.example/', '//elsewhere.example/x', '/\\elsewhere.example', 'items/1', '/items/1\nLocation: x', '']) {
      expect(isPortalPath(link), link).toBe(false)
    }
  })
})
