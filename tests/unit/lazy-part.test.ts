import { describe, expect, test } from 'vitest'
import { untilLoaded } from '~/components/ui/lazy-part'

describe('untilLoaded', () => {
  test('a load that fails is tried again, waiting between tries, until it succeeds', async () => {
    let calls = 0
    const waits: number[] = []
    const value = await untilLoaded(
      async () => {
        calls += 1
        if (calls < 3) throw new TypeError('Failed to fetch dynamically imported module')
        return 'the part'
      },
      async (attempt) => {
        waits.push(attempt)
      },
    )
    expect(value).toBe('the part')
    expect(calls).toBe(3)
    expect(waits).toEqual([0, 1])
  })

  test('a load that succeeds at once does not wait', async () => {
    const waits: number[] = []
    expect(await untilLoaded(async () => 1, async (attempt) => void waits.push(attempt))).toBe(1)
    expect(waits).toEqual([])
  })
})

describe('lazyPart', () => {
  test('fetchNow starts the fetch when the part is declared, once; without it nothing is fetched before a render', async () => {
    const { lazyPart } = await import('~/components/ui/lazy-part')
    let eager = 0
    let onRender = 0
    lazyPart(async () => {
      eager += 1
      return () => null
    }, { fetchNow: true })
    lazyPart(async () => {
      onRender += 1
      return () => null
    })
    expect(eager).toBe(1)
    expect(onRender).toBe(0)
  })
})
