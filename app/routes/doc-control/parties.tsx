import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'

/** Placeholder while issue 12 builds this screen. */
export default function Placeholder() {
  return (
    <>
      <PageHeader title="Document control" />
      <EmptyState heading="Not available yet">This screen is being built.</EmptyState>
    </>
  )
}
