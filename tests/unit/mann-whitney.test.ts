import { expect, test } from 'vitest'
import { mannWhitneyU } from '#tests/helpers/mann-whitney'

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i)

test('two samples that do not overlap at all are told apart far beyond any noise level', () => {
  const { u, p } = mannWhitneyU(range(1, 20), range(21, 20))

  expect(u).toBe(0)
  expect(p).toBeLessThan(1e-6)
})

test('two interleaved samples from the same values are not told apart', () => {
  const evens = range(0, 20).map((i) => i * 2)
  const odds = evens.map((v) => v + 1)

  const { p } = mannWhitneyU(evens, odds)

  expect(p).toBeGreaterThan(0.5)
})

test('a consistent shift of a third of the spread is detected at the 5% level', () => {
  const base = range(0, 20)
  const { p } = mannWhitneyU(base, base.map((v) => v + 7))

  expect(p).toBeLessThan(0.05)
})

test('ties get mid-ranks: identical samples give U at its mean and p = 1', () => {
  const { z, p } = mannWhitneyU([5, 5, 5, 7], [5, 5, 7, 5])

  expect(z).toBe(0)
  expect(p).toBeCloseTo(1, 6)
})
