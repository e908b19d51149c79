import { type ReactNode } from 'react'

export type PageHeaderProps = {
  title: ReactNode
  description?: ReactNode
  /** The page's primary action (usually one `ButtonLink` or `Button`), placed beside the title. */
  actions?: ReactNode
}

/** The top of every screen: its one `h1`, a short description and the primary action. */
export function PageHeader({ title, description, actions }: PageHeaderProps) {
  return (
    <div className="mb-6 flex flex-col gap-4 sm:flex-row sm:items-start sm:justify-between">
      <div className="min-w-0">
        <h1 className="text-2xl font-semibold tracking-tight break-words text-text">{title}</h1>
        {description ? <p className="mt-1 text-muted">{description}</p> : null}
      </div>
      {actions ? <div className="flex shrink-0 flex-wrap items-start gap-2">{actions}</div> : null}
    </div>
  )
}
