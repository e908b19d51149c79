import { createElement, Suspense } from 'react'
import { renderToString } from 'react-dom/server'
import { afterEach, describe, expect, test, vi } from 'vitest'
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
  test('fetchNow starts the fetch in the task after the part is declared, once; without it nothing is fetched before a render', async () => {
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
    // Not in the task that evaluates the screen's modules (the preload helper's link insertions).
    expect(eager).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 0))
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(eager).toBe(1)
    expect(onRender).toBe(0)
  })

  test('ready() starts the fetch of a fetchNow part at once, and the later task does not fetch it again', async () => {
    const { lazyPart } = await import('~/components/ui/lazy-part')
    let fetches = 0
    const Part = lazyPart(async () => {
      fetches += 1
      return () => null
    }, { fetchNow: true })
    const ready = Part.ready()
    expect(fetches).toBe(1)
    await ready
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(fetches).toBe(1)
  })

  test('once its chunk is here the part renders at once, without suspending for a turn', async () => {
    const { lazyPart } = await import('~/components/ui/lazy-part')
    const Part = lazyPart(async () => () => createElement('p', null, 'the form'), { fetchNow: true })
    const page = () => renderToString(createElement(Suspense, { fallback: createElement('p', null, 'nothing yet') }, createElement(Part)))
    // React's lazy alone drew its fallback on a first render even with the chunk here.
    expect(page()).toContain('nothing yet')
    await Part.ready()
    expect(page()).toContain('the form')
  })
})

describe('partsBeforeNavigation', () => {
  afterEach(() => {
    vi.useRealTimers()
    vi.unstubAllEnvs()
  })

  const never = { ready: () => new Promise<never>(() => {}) }

  test('at the first load it waits for nothing; after hydration it waits for the parts, at most PART_WAIT_MS', async () => {
    vi.stubEnv('SSR', false)
    vi.resetModules()
    const { markHydrated, partsBeforeNavigation, PART_WAIT_MS } = await import('~/components/ui/deferred')
    await partsBeforeNavigation(never)

    markHydrated()
    let arrived!: () => void
    const part = { ready: () => new Promise<void>((resolve) => (arrived = resolve)) }
    let done = false
    const waiting = partsBeforeNavigation(part).then(() => (done = true))
    await Promise.resolve()
    expect(done).toBe(false)
    arrived()
    await waiting

    vi.useFakeTimers()
    done = false
    const bounded = partsBeforeNavigation(never).then(() => (done = true))
    await vi.advanceTimersByTimeAsync(PART_WAIT_MS - 1)
    expect(done).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    await bounded
    expect(done).toBe(true)
  })
})
