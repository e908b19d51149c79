import { useRef } from 'react'
import { Form, Link } from 'react-router'
import { useDismissDisclosure } from './disclosure'
import { CsrfInput } from '~/components/ui/csrf-input'
import { SubmitButton } from '~/components/ui/submit-button'

export type UserMenuProps = { displayName: string; email: string }

/** At most two upper-case letters: the first of the first and of the last word of the name. */
export function initialsOf(displayName: string, email = ''): string {
  const words = displayName.split(/\s+/).map((word) => word.replace(/[^\p{L}\p{N}]/gu, '')).filter(Boolean)
  const first = words[0]
  const last = words.length > 1 ? words[words.length - 1] : undefined
  const letters = [first, last].map((word) => (word ? Array.from(word)[0] : undefined)).filter(Boolean)
  if (letters.length > 0) return letters.join('').toLocaleUpperCase()
  const fromEmail = Array.from(email.replace(/[^\p{L}\p{N}]/gu, ''))[0]
  return fromEmail ? fromEmail.toLocaleUpperCase() : '?'
}

/**
 * The account disclosure: initials, name, e-mail, the person's own things (My exports) and Sign
 * out. A native `<details>` so it opens
 * without JavaScript; with it, Escape, a click elsewhere and a navigation close it.
 */
export function UserMenu({ displayName, email }: UserMenuProps) {
  const detailsRef = useRef<HTMLDetailsElement>(null)
  const initials = initialsOf(displayName, email)

  useDismissDisclosure(detailsRef)

  return (
    <details
      ref={detailsRef}
      className="relative"
      onKeyDown={(event) => {
        const details = detailsRef.current
        if (event.key === 'Escape' && details?.open) {
          details.open = false
          details.querySelector('summary')?.focus()
        }
      }}
    >
      {/*
        Named by its text, not aria-label: the name must contain what is visible (WCAG 2.5.3, axe
        label-content-name-mismatch), and on a phone only the initials show.
      */}
      <summary className="flex min-h-11 cursor-pointer list-none items-center gap-2 rounded-md px-1.5 hover:bg-surface-muted [&::-webkit-details-marker]:hidden">
        <span aria-hidden="true" className="inline-flex size-8 items-center justify-center rounded-full bg-primary-strong text-xs font-semibold text-white">
          {initials}
        </span>
        <span className="sr-only">Account menu for </span>
        <span className="hidden max-w-40 truncate text-sm font-medium text-text sm:inline">{displayName}</span>
        <span className="sr-only sm:hidden">{displayName}</span>
        <span aria-hidden="true" className="text-xs text-muted">
          ▾
        </span>
      </summary>
      <div className="absolute right-0 z-20 mt-2 w-72 max-w-[calc(100vw-2rem)] rounded-lg border border-border bg-surface p-4 shadow-lg">
        <div className="flex items-center gap-3">
          <span aria-hidden="true" className="inline-flex size-10 shrink-0 items-center justify-center rounded-full bg-primary-strong text-sm font-semibold text-white">
            {initials}
          </span>
          <div className="min-w-0">
            <p className="truncate font-medium text-text">{displayName}</p>
            <p className="truncate text-sm text-muted">{email}</p>
          </div>
        </div>
        <nav aria-label="Account" className="mt-4 border-t border-border pt-2">
          <ul>
            <li>
              <Link to="/exports" className="flex min-h-11 items-center rounded-md px-2 text-sm font-medium text-text hover:bg-surface-muted">
                My exports
              </Link>
            </li>
          </ul>
        </nav>
        <Form method="post" action="/auth/logout" className="mt-2 border-t border-border pt-4">
          <CsrfInput />
          <SubmitButton action="/auth/logout" variant="secondary" pendingLabel="Signing out…" className="w-full">
            Sign out
          </SubmitButton>
        </Form>
      </div>
    </details>
  )
}
