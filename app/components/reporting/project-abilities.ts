import type { Report } from '~/lib/reporting/types'
import { type ShellSession, useShellSession } from '~/root'

/**
 * What the signed-in user may do in site reporting (docs/site-reporting.md "Status and who may do
 * what"), so screens only offer what will work. The backend decides anyway: a 403 still shows.
 */
export type ReportingAbilities = {
  /** Create and rename projects and reports, add items. */
  write: boolean
  /** Archive and unarchive projects. */
  archiveProjects: boolean
  /** Archive and unarchive this report: an administrator, or its creator with write access. */
  archiveReport: (report: Pick<Report, 'createdBy'>) => boolean
}

export function abilitiesOf(session: Pick<ShellSession, 'isAdmin' | 'roles' | 'userId'> | null): ReportingAbilities {
  const admin = session?.isAdmin ?? false
  // The session's role names come from the membership (server/domain/auth/roles.ts); anything
  // but ReadWrite or an administrator reads only.
  const write = admin || (session?.roles.includes('ReadWrite') ?? false)
  return {
    write,
    archiveProjects: admin,
    archiveReport: (report) => admin || (write && report.createdBy?.id === session?.userId),
  }
}

export function useReportingAbilities(): ReportingAbilities {
  return abilitiesOf(useShellSession())
}
