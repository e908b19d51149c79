/**
 * When a screen revalidates after changes it cares about: once per burst (a debounce), and never
 * while the user's own navigation or submission is in flight (it would be cancelled or repeat work),
 * but right after it. Plain timers, so it is tested with fake ones.
 */
export class RevalidationScheduler {
  private timer: ReturnType<typeof setTimeout> | undefined
  private due = false
  private busy = false

  constructor(
    private readonly revalidate: () => void,
    private readonly debounceMs: number,
  ) {}

  /** A change concerning the screen arrived. */
  notify(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.due = true
      this.flush()
    }, this.debounceMs)
  }

  /** A navigation, fetcher submission or revalidation started (true) or settled (false). */
  setBusy(busy: boolean): void {
    this.busy = busy
    this.flush()
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    this.due = false
  }

  private flush(): void {
    if (!this.due || this.busy) return
    this.due = false
    this.revalidate()
  }
}

/** Spec-free: short enough to feel live, long enough to turn a burst (a bulk edit) into one request. */
export const REVALIDATION_DEBOUNCE_MS = 300

/**
 * How long after this tab's own submission a change by the same person is taken for its echo. The
 * submission's redirect has already loaded fresh data; revalidating again would only cost a request
 * and drop the flash message the redirect brought (the root loader hands it out once).
 */
export const OWN_ECHO_WINDOW_MS = 10_000

/** Whether a change is most likely the echo of this tab's own submission (see OWN_ECHO_WINDOW_MS). */
export function isOwnEcho(input: {
  changedByUserId: string | undefined
  ownUserId: string | undefined
  submitting: boolean
  lastSubmissionEndedAt: number
  now: number
}): boolean {
  if (!input.ownUserId || input.changedByUserId !== input.ownUserId) return false
  return input.submitting || input.now - input.lastSubmissionEndedAt < OWN_ECHO_WINDOW_MS
}
