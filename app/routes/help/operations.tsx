import { data } from 'react-router'
import { PageHeader } from '~/components/ui/page-header'
import type { Route } from './+types/operations'
import { operationsGuideHtml } from './operations.server'

/**
 * /help/operations: the operations guide (docs/operations.md), served by the product so a screen
 * that says "whoever runs the server sets this" can link to the place that says how.
 */
export function loader() {
  return data({ html: operationsGuideHtml() })
}

export default function OperationsGuide({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <PageHeader title="Operations guide" description="For whoever runs the server: how to start, configure, back up and watch it." />
      <article
        className="prose-guide max-w-3xl text-text [&_a]:text-primary-strong [&_a]:underline [&_code]:break-words [&_code]:font-mono [&_code]:text-sm [&_h2]:mt-8 [&_h2]:text-xl [&_h2]:font-semibold [&_h3]:mt-6 [&_h3]:text-lg [&_h3]:font-semibold [&_h4]:mt-4 [&_h4]:font-semibold [&_li]:ml-6 [&_li]:list-disc [&_p]:mt-3 [&_pre]:mt-3 [&_pre]:overflow-x-auto [&_pre]:rounded-md [&_pre]:bg-surface-muted [&_pre]:p-3 [&_pre]:text-sm [&_table]:mt-3 [&_table]:block [&_table]:overflow-x-auto [&_td]:border [&_td]:border-border [&_td]:px-2 [&_td]:py-1 [&_th]:border [&_th]:border-border [&_th]:px-2 [&_th]:py-1 [&_ul]:mt-3"
        // Our own guide, rendered on the server from the build's copy of it: trusted HTML.
        dangerouslySetInnerHTML={{ __html: loaderData.html }}
      />
    </>
  )
}

export function meta() {
  return [{ title: 'Operations guide · Site Portal' }]
}
