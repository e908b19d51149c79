import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

/**
 * drizzle's migrator applies a migration only when its `when` is later than the last applied one's
 * (created_at in __drizzle_migrations), so a migration whose `when` is earlier than the one before
 * it is skipped on every database that already had the one before: it would run on a new database
 * and never on an upgraded one. Branches made side by side and renumbered at merge are where that
 * happens; this keeps the journal in one order.
 */
const folder = fileURLToPath(new URL('../../server/db/migrations', import.meta.url))
const journal = JSON.parse(readFileSync(`${folder}/meta/_journal.json`, 'utf8')) as { entries: Array<{ idx: number; when: number; tag: string }> }

test('the journal lists every migration file once, numbered in order, each later than the one before', () => {
  const files = readdirSync(folder)
    .filter((name) => name.endsWith('.sql'))
    .map((name) => name.replace(/\.sql$/, ''))
    .sort()
  expect(journal.entries.map((entry) => entry.tag)).toEqual(files)
  journal.entries.forEach((entry, index) => {
    expect(entry.idx).toBe(index)
    expect(entry.tag.startsWith(String(index).padStart(4, '0'))).toBe(true)
    if (index > 0) expect(entry.when, `${entry.tag} must be later than ${journal.entries[index - 1]!.tag}`).toBeGreaterThan(journal.entries[index - 1]!.when)
  })
})
