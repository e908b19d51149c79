import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { FlashToast } from '~/components/ui/toast'

/** The frame of the public screens: product name, one card, the page's h1. */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col items-center px-4 py-10 sm:py-16">
      <Link to="/" className="mb-8 text-lg font-semibold text-text">
        Site Portal
      </Link>
      <main id="main" tabIndex={-1} className="w-full max-w-md rounded-lg border border-border bg-surface p-6 shadow-sm sm:p-8">
        <FlashToast />
        <h1 className="mb-6 text-2xl font-semibold text-text">{title}</h1>
        {children}
      </main>
    </div>
  )
}
