import { Form } from 'react-router'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { CsrfInput } from '~/components/ui/csrf-input'
import { SubmitButton } from '~/components/ui/submit-button'
import type { MatrixEntry, Party, Responsibility } from '~/lib/doc-control/types'
import { RevisionInput } from '~/components/ui/revision-input'

type Discipline = { code: string; description: string }

/** The value of one checkbox: which discipline, which party, which responsibility (intent `save-matrix` reads them back). */
export function cellValue(discipline: string, partyId: string, responsibility: Responsibility): string {
  return `${discipline}|${partyId}|${responsibility}`
}

const WORDS: Record<Responsibility, { label: string; verb: string }> = { produce: { label: 'Produce', verb: 'produces' }, review: { label: 'Review', verb: 'reviews' } }

/**
 * The responsibility matrix of one document type (or any): disciplines down, parties across, each
 * cell saying whether the party produces, reviews, both or neither. For a manager every cell is two
 * checkboxes in one form (saved together, without JavaScript); for others, words.
 */
export function MatrixTable({
  disciplines,
  parties,
  entries,
  docType,
  scopeLabel,
  canManage,
  revision,
  kept,
}: {
  disciplines: readonly Discipline[]
  parties: ReadonlyArray<Pick<Party, 'id' | 'name' | 'code'>>
  entries: readonly MatrixEntry[]
  docType: string | null
  scopeLabel: string
  canManage: boolean
  /** The matrix's revision this form saves against (expectedRevision): the loaded one, or the current one after a conflict. */
  revision: number
  /** After a conflict: the cells as the user ticked them, shown instead of the saved ones. */
  kept?: readonly string[] | undefined
}) {
  const saved = new Set(entries.filter((e) => e.docType === docType).map((e) => cellValue(e.discipline, e.partyId, e.responsibility)))
  const ticked = kept ? new Set(kept) : saved
  const columns: Array<DataTableColumn<Discipline>> = [
    {
      key: 'discipline',
      header: 'Discipline',
      rowHeader: true,
      cell: (d) => (
        <span className="whitespace-nowrap">
          <span className="font-semibold">{d.code}</span>
          {d.description ? <span className="text-muted"> {d.description}</span> : null}
        </span>
      ),
    },
    ...parties.map((party): DataTableColumn<Discipline> => ({
      key: party.id,
      header: party.code ? `${party.name} (${party.code})` : party.name,
      cell: (d) => {
        const marks = (['produce', 'review'] as const).filter((r) => saved.has(cellValue(d.code, party.id, r)))
        if (!canManage) return marks.length === 0 ? <span className="text-muted">—</span> : marks.map((r) => WORDS[r].label).join(', ')
        return (
          <span className="flex flex-col gap-1">
            {(['produce', 'review'] as const).map((r) => (
              <label key={r} className="inline-flex min-h-6 cursor-pointer items-center gap-2 whitespace-nowrap">
                <input
                  type="checkbox"
                  name="cell"
                  value={cellValue(d.code, party.id, r)}
                  defaultChecked={ticked.has(cellValue(d.code, party.id, r))}
                  aria-label={`${d.code}${d.description ? ` ${d.description}` : ''}: ${party.name} ${WORDS[r].verb}`}
                  className="size-5 accent-primary"
                />
                <span className="text-xs">{WORDS[r].label}</span>
              </label>
            ))}
          </span>
        )
      },
    })),
  ]
  const table = <DataTable caption={`Who produces and who reviews: ${scopeLabel}`} columns={columns} rows={disciplines} rowKey={(d) => d.code} />
  if (!canManage) return table
  return (
    // The key resets the checkboxes to what was saved (or, after a conflict, ticked) whenever the scope or those cells change.
    <Form method="post" key={`${docType ?? ''}:${kept ? 'kept' : 'saved'}:${[...ticked].sort().join(',')}`} aria-label="Responsibility matrix" className="flex flex-col gap-4">
      <CsrfInput />
      <input type="hidden" name="docType" value={docType ?? ''} />
      <RevisionInput revision={revision} />
      {table}
      <SubmitButton intent="save-matrix" pendingLabel="Saving…" className="self-start">
        Save matrix
      </SubmitButton>
    </Form>
  )
}
