import { PageHeader } from '~/components/ui/page-header'

/** Issue 13: being built. */
export default function Screen() {
  return <PageHeader title="Packages" />
}
