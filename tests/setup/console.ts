import { afterEach, beforeEach, vi } from 'vitest'

// STYLE.md: a console.error during a test fails it.
let errors: unknown[][] = []
const original = console.error

beforeEach(() => {
  errors = []
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    errors.push(args)
    original(...args)
  })
})

afterEach(() => {
  vi.mocked(console.error).mockRestore()
  if (errors.length > 0) {
    const first = errors[0]?.map((a) => (a instanceof Error ? a.stack : String(a))).join(' ')
    throw new Error(`console.error was called ${errors.length} time(s) during the test: ${first}`)
  }
})
