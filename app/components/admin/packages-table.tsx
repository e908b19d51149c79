import { Form, Link } from 'react-router'
import { Badge } from '~/components/ui/badge'
import { CsrfInput } from '~/components/ui/csrf-input'
import { DataTable } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { SubmitButton } from '~/components/ui/submit-button'
import type { AdminPackage } from '~/lib/admin/packages'
import { formatNumber } from '~/lib/format'
import { RevisionInput } from '~/components/ui/revision-input'

/** The organisation's packages with their state, use and per-row actions (activate or deactivate: a POST each; rename: a link to the form). */
export function PackagesTable({ packages, locale, renameHref }: { packages: readonly AdminPackage[]; locale: string; renameHref: (key: string) => string }) {
  return (
    <DataTable
      caption="Packages of the organisation"
      captionHidden
      rows={packages}
      rowKey={(p) => p.key}
      emptyState={
        <EmptyState heading="No packages yet" headingLevel={3}>
          Add the trades or work packages items are filed under, e.g. Glazing or Electrical.
        </EmptyState>
      }
      columns={[
        { key: 'name', header: 'Package', rowHeader: true, cell: (p) => <span className="break-words">{p.name}</span> },
        { key: 'key', header: 'Key', hideOnMobile: true, cell: (p) => <code className="text-xs">{p.key}</code> },
        {
          key: 'state',
          header: 'State',
          cell: (p) => (p.active ? <Badge tone="success">Active</Badge> : <Badge tone="neutral">Inactive</Badge>),
        },
        { key: 'items', header: 'Items', align: 'end', cell: (p) => formatNumber(p.itemCount, locale) },
        { key: 'projects', header: 'Project settings', align: 'end', hideOnMobile: true, cell: (p) => formatNumber(p.projectOverrideCount, locale) },
        { key: 'order', header: 'Order', align: 'end', hideOnMobile: true, cell: (p) => formatNumber(p.sortOrder, locale) },
        {
          key: 'actions',
          header: <span className="sr-only">Actions</span>,
          cell: (p) => (
            <div className="flex flex-wrap items-center gap-3">
              <Form method="post">
                <CsrfInput />
                <input type="hidden" name="key" value={p.key} />
                <input type="hidden" name="active" value={p.active ? 'false' : 'true'} />
                <RevisionInput revision={p.revision} />
                <SubmitButton intent="toggle" variant="secondary" size="sm" pendingLabel={p.active ? 'Deactivating…' : 'Activating…'}>
                  {p.active ? 'Deactivate' : 'Activate'}
                  <span className="sr-only"> {p.name}</span>
                </SubmitButton>
              </Form>
              <Link to={renameHref(p.key)} className="text-sm text-primary-strong underline underline-offset-2">
                Rename<span className="sr-only"> {p.name}</span>
              </Link>
            </div>
          ),
        },
      ]}
    />
  )
}
