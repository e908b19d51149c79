import { z } from 'zod'
import { recordRevision } from './edit-conflict'
import { SeatStandingSchema } from './licensing'
import { UserContactSchema, UserRefSchema } from './reporting-responses'
import {
  CONFIG_CATEGORIES,
  CONFIG_TEST_KINDS,
  type ConfigCategoryValues,
  type ConfigStatusEntry,
  type ConfigStatusResponse,
  type ConfigTestResult,
  type ConfigVersion,
  type ConfigVersionsResponse,
} from '~/lib/admin/config'
import { SUPPORT_STATUSES, type SupportAssignee, type SupportMessage, type SupportTicket, type SupportTicketDetail } from '~/lib/admin/support'
import type { AuditActionCount, AuditEntry, AuditPage, ChainVerification } from '~/lib/admin/audit'
import type { AdminDevice, DevicePage } from '~/lib/admin/devices'
import type { EmailTemplateDetail, EmailTemplateList, EmailTemplatePreview, EmailTemplateSummary, EmailTemplateTestResult } from '~/lib/admin/email-templates'
import {
  INVITE_STATUSES,
  PROJECT_INVITE_STATUSES,
  type CreatedProjectInvite,
  type Invite,
  type InviteClaimed,
  type InviteLanding,
  type ProjectInvite,
  type ProjectInviteClaimed,
  type ProjectInviteLanding,
} from '~/lib/admin/invites'
import { ROLE_CHOICES, type AdminJoinRequest, type JoinRequestPage, type OwnJoinRequest } from '~/lib/admin/join-requests'
import type { AdminPackage, ProjectPackageSetting } from '~/lib/admin/packages'
import { UPLOAD_PURPOSES, UPLOAD_STATES, type AdminUpload, type AdminUploadStats } from '~/lib/admin/uploads'
import { ADMIN_ROLE_KEYS, ADMIN_USER_STATUSES, MEMBERSHIP_STATUSES, type AdminOrganisation, type AdminRole, type AdminUser, type HardDeleteResult } from '~/lib/admin/users'
import type { AdminOverview, RetentionHealth, RetentionPolicy } from './admin-retention'
import { NewUploadSessionSchema, SupportAttachmentSchema } from './photos-responses'

/**
 * Administration's answers (docs/admin/*.md): people, devices, invites, join requests and work
 * packages, overview and retention, audit, uploads and e-mail templates; published in /api/openapi.json as named components and checked against every answer in
 * the tests (schema incidents). They mirror app/lib/admin/*.ts (`satisfies`).
 */

const utc = z.iso.datetime().describe('ISO 8601, UTC.')
const count = z.number().int().min(0)
const person = UserRefSchema

// ---- People ----

export const AdminMembershipSchema = z
  .object({
    organisationId: z.uuid(),
    organisationName: z.string(),
    organisationSlug: z.string(),
    roleKey: z.enum(ADMIN_ROLE_KEYS),
    statusDisplayName: z.enum(MEMBERSHIP_STATUSES),
    isDefault: z.boolean(),
    namespacedUrl: z.string(),
  })
  .meta({ id: 'AdminMembership' })

export const AdminUserSchema = z
  .object({
    id: z.uuid(),
    displayName: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    position: z.string().nullable(),
    email: z.string(),
    status: z.enum(ADMIN_USER_STATUSES),
    isMfaEnforced: z.boolean(),
    revision: recordRevision,
    createdAtUtc: utc,
    updatedAtUtc: utc,
    memberships: z.array(AdminMembershipSchema),
  })
  .meta({ id: 'AdminUser' }) satisfies z.ZodType<AdminUser>

export const AdminUserPageSchema = z.object({ items: z.array(AdminUserSchema), nextCursor: z.string().nullable() })
export const HardDeleteResultSchema = z.object({ id: z.uuid(), outcome: z.enum(['anonymised', 'removed-from-organisation']) }) satisfies z.ZodType<HardDeleteResult>
export const AdminRoleListSchema = z.object({ items: z.array(z.object({ key: z.enum(ADMIN_ROLE_KEYS), name: z.string() }).meta({ id: 'AdminRole' }) satisfies z.ZodType<AdminRole>) })
export const AdminOrganisationListSchema = z.object({
  items: z.array(z.object({ id: z.uuid(), name: z.string(), slug: z.string(), memberCount: count, isCurrent: z.boolean() }).meta({ id: 'AdminOrganisation' }) satisfies z.ZodType<AdminOrganisation>),
})

// ---- Devices ----

export const DeviceSchema = z
  .object({
    deviceId: z.string(),
    platform: z.string(),
    name: z.string().nullable(),
    user: z.object({ id: z.uuid(), displayName: z.string(), email: z.string() }),
    registeredAtUtc: utc,
    lastSeenAtUtc: utc,
    revokedAtUtc: utc.nullable(),
    activeSessions: count,
  })
  .meta({ id: 'Device' }) satisfies z.ZodType<AdminDevice>

export const DevicePageSchema = z.object({ items: z.array(DeviceSchema), nextCursor: z.string().nullable(), platforms: z.array(z.string()) }) satisfies z.ZodType<DevicePage>

// ---- Invites ----

export const InviteSchema = z
  .object({
    id: z.uuid(),
    email: z.string(),
    roleKey: z.string(),
    roleName: z.string(),
    message: z.string().nullable(),
    status: z.enum(INVITE_STATUSES),
    invitedBy: person.nullable(),
    sendCount: count,
    lastSentAtUtc: utc,
    expiresAtUtc: utc,
    acceptedAtUtc: utc.nullable(),
    cancelledAtUtc: utc.nullable(),
    createdAtUtc: utc,
    link: z.string().optional().describe('The invitation link: only in the answers of invite and resend, which made it.'),
  })
  .meta({ id: 'Invite' }) satisfies z.ZodType<Invite>

export const InviteLandingSchema = z
  .object({
    organisationName: z.string(),
    email: z.string(),
    roleKey: z.string(),
    roleName: z.string(),
    message: z.string().nullable(),
    inviterName: z.string().nullable(),
    status: z.enum(INVITE_STATUSES),
    statusDetail: z.string(),
    expiresAtUtc: utc,
  })
  .meta({ id: 'InviteLanding' }) satisfies z.ZodType<InviteLanding>

export const ProjectInviteSchema = z
  .object({
    id: z.uuid(),
    projectId: z.uuid(),
    projectTitle: z.string().nullable(),
    email: z.string().nullable(),
    roleKey: z.string(),
    roleName: z.string(),
    message: z.string().nullable(),
    status: z.enum(PROJECT_INVITE_STATUSES),
    maxUses: z.number().int().nullable(),
    useCount: count,
    hasCode: z.boolean(),
    createdBy: person.nullable(),
    expiresAtUtc: utc,
    cancelledAtUtc: utc.nullable(),
    createdAtUtc: utc,
  })
  .meta({ id: 'ProjectInvite' }) satisfies z.ZodType<ProjectInvite>

/** A page of invites: GET /api/admin/invites, and an organisation's pending seat invites. */
export const InvitePageSchema = z.object({ items: z.array(InviteSchema), nextCursor: z.string().nullable() }).meta({ id: 'InvitePage' })

export const CreatedProjectInviteSchema = z.object({ invite: ProjectInviteSchema, token: z.string(), link: z.string(), code: z.string() }) satisfies z.ZodType<CreatedProjectInvite>

export const ProjectInviteLandingSchema = z
  .object({
    organisationName: z.string(),
    projectTitle: z.string().nullable(),
    roleKey: z.string(),
    roleName: z.string(),
    message: z.string().nullable(),
    inviterName: z.string().nullable(),
    email: z.string().nullable(),
    status: z.enum(PROJECT_INVITE_STATUSES),
    statusDetail: z.string(),
    expiresAtUtc: utc,
  })
  .meta({ id: 'ProjectInviteLanding' }) satisfies z.ZodType<ProjectInviteLanding>

const claimedFields = { organisationId: z.uuid(), organisationName: z.string(), organisationSlug: z.string(), roleKey: z.string(), joined: z.boolean() }
export const InviteClaimedSchema = z.object(claimedFields).meta({ id: 'InviteClaimed' }) satisfies z.ZodType<InviteClaimed>
export const ProjectInviteClaimedSchema = z
  .object({ ...claimedFields, projectId: z.uuid(), projectTitle: z.string().nullable(), level: z.string() })
  .meta({ id: 'ProjectInviteClaimed' }) satisfies z.ZodType<ProjectInviteClaimed>

// ---- Join requests ----

const roleKey = z.enum(ROLE_CHOICES.map((choice) => choice.value) as [AdminJoinRequest['roleKey'] & string, ...(AdminJoinRequest['roleKey'] & string)[]])
const joinStatus = z.enum(['pending', 'approved', 'declined', 'withdrawn'])

export const JoinRequestSchema = z
  .object({
    id: z.uuid(),
    requester: z.object({ id: z.uuid(), displayName: z.string(), email: z.string() }),
    message: z.string().nullable(),
    status: joinStatus,
    roleKey: roleKey.nullable(),
    declineReason: z.string().nullable(),
    decidedBy: person.nullable(),
    createdAtUtc: utc,
    decidedAtUtc: utc.nullable(),
  })
  .meta({ id: 'JoinRequest' }) satisfies z.ZodType<AdminJoinRequest>

export const JoinRequestPageSchema = z.object({ items: z.array(JoinRequestSchema), nextCursor: z.string().nullable() }) satisfies z.ZodType<JoinRequestPage>

export const OwnJoinRequestSchema = z
  .object({
    id: z.uuid(),
    organisationName: z.string(),
    organisationSlug: z.string(),
    status: joinStatus,
    declineReason: z.string().nullable(),
    createdAt: utc,
    decidedAt: utc.nullable(),
  })
  .meta({ id: 'OwnJoinRequest' }) satisfies z.ZodType<OwnJoinRequest>

// ---- Work packages ----

export const AdminPackageSchema = z
  .object({ key: z.string(), name: z.string(), active: z.boolean(), sortOrder: z.number().int(), itemCount: count, projectOverrideCount: count, revision: recordRevision, createdAtUtc: utc, updatedAtUtc: utc })
  .meta({ id: 'AdminPackage' }) satisfies z.ZodType<AdminPackage>

export const ProjectPackageSettingSchema = z
  .object({ key: z.string(), name: z.string(), organisationActive: z.boolean(), override: z.boolean().nullable(), active: z.boolean() })
  .meta({ id: 'ProjectPackageSetting' }) satisfies z.ZodType<ProjectPackageSetting>

/** The organisation's packages with the list's revision (GET and PUT /api/admin/organisations/{id}/packages answer the same). */
export const AdminPackageListSchema = z.object({ items: z.array(AdminPackageSchema), revision: recordRevision }).meta({ id: 'AdminPackageList' })

/** A project's package settings with their revision (the administrator's GET and the manager's PUT answer the same). */
export const ProjectPackageSettingsSchema = z.object({ items: z.array(ProjectPackageSettingSchema), revision: recordRevision }).meta({ id: 'ProjectPackageSettings' })

// ---- Overview and retention ----

export const RetentionHealthSchema = z
  .object({ activeCount: count, archivedCount: count, purgedCount: count, dueCount: count, nextDueAtUtc: utc.nullable() })
  .meta({ id: 'RetentionHealth' }) satisfies z.ZodType<RetentionHealth>

export const RetentionPolicyAnswerSchema = z
  .object({ enabled: z.boolean(), archiveAfterDays: z.number().int(), purgeAfterDays: z.number().int(), lastRunAtUtc: utc.nullable(), updatedAtUtc: utc.nullable(), revision: recordRevision })
  .meta({ id: 'RetentionPolicy' }) satisfies z.ZodType<RetentionPolicy>

export const AdminOverviewSchema = z.object({
  activeUsers: count,
  seats: SeatStandingSchema,
  pendingInvites: count,
  pendingJoinRequests: count,
  failingMail: count,
  storageUsedBytes: count,
  storageQuotaBytes: count,
  retention: RetentionHealthSchema.extend({ enabled: z.boolean() }),
  demoAccounts: z.array(z.string()).describe('The demo accounts (published passwords) present while this server is reached at an address other than a loopback one, to be removed (empty when none).'),
}) satisfies z.ZodType<AdminOverview>

// ---- Audit ----

export const AuditEntrySchema = z
  .object({
    id: z.uuid(),
    chainSeq: z.number().int(),
    action: z.string(),
    actor: z.object({ id: z.uuid(), displayName: z.string().nullable(), email: z.string().nullable() }).nullable(),
    targetType: z.string().nullable(),
    targetId: z.string().nullable(),
    targetName: z.string().nullable(),
    ip: z.string().nullable(),
    correlationId: z.string().nullable(),
    data: z.record(z.string(), z.unknown()).nullable(),
    createdAtUtc: utc,
    hash: z.string().nullable(),
    prevHash: z.string().nullable(),
  })
  .meta({ id: 'AuditEntry' }) satisfies z.ZodType<AuditEntry>

export const AuditPageSchema = z.object({ items: z.array(AuditEntrySchema), nextCursor: z.string().nullable() }) satisfies z.ZodType<AuditPage>
export const AuditActionCountsSchema = z.object({ items: z.array(z.object({ action: z.string(), count, lastAtUtc: utc }).meta({ id: 'AuditActionCount' }) satisfies z.ZodType<AuditActionCount>) })

export const ChainVerificationSchema = z.object({
  ok: z.boolean(),
  checked: count,
  headSeq: z.number().int(),
  firstBroken: z
    .object({ chainSeq: z.number().int(), id: z.uuid().nullable(), reason: z.enum(['hash-mismatch', 'link-mismatch', 'missing-entry', 'head-mismatch']), detail: z.string().optional() })
    .nullable(),
  verifiedAtUtc: utc,
}).meta({ id: 'ChainVerification' }) satisfies z.ZodType<ChainVerification>

// ---- Uploads ----

export const AdminUploadSchema = z
  .object({
    id: z.uuid(),
    purpose: z.enum(UPLOAD_PURPOSES),
    state: z.enum(UPLOAD_STATES),
    fileName: z.string(),
    contentType: z.string(),
    size: count,
    offset: count,
    who: person.nullable(),
    stuck: z.boolean(),
    createdAtUtc: utc,
    updatedAtUtc: utc,
    expiresAtUtc: utc,
    completedAtUtc: utc.nullable(),
    failureReason: z.string().nullable(),
  })
  .meta({ id: 'AdminUpload' }) satisfies z.ZodType<AdminUpload>

export const AdminUploadPageSchema = z.object({ items: z.array(AdminUploadSchema), nextCursor: z.string().nullable() })

export const AdminUploadStatsSchema = z.object({
  open: count,
  completing: count,
  completed: count,
  failed: count,
  aborted: count,
  expired: count,
  stuck: count,
  bytesCompleted: count,
  bytesInProgress: count,
}).meta({ id: 'AdminUploadStats' }) satisfies z.ZodType<AdminUploadStats>

// ---- E-mail templates ----

const templateTexts = { subject: z.string(), html: z.string(), text: z.string() }

export const EmailTemplateSummarySchema = z
  .object({ key: z.string(), title: z.string(), description: z.string(), customised: z.boolean(), version: count, updatedAtUtc: utc.nullable(), updatedBy: person.nullable() })
  .meta({ id: 'EmailTemplateSummary' }) satisfies z.ZodType<EmailTemplateSummary>

export const EmailTemplateListSchema = z.object({ items: z.array(EmailTemplateSummarySchema) }) satisfies z.ZodType<EmailTemplateList>

export const EmailTemplateSchema = EmailTemplateSummarySchema.extend({
  ...templateTexts,
  defaults: z.object(templateTexts),
  variables: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      sample: z.string(),
      fields: z.array(z.object({ name: z.string(), description: z.string(), sample: z.string() })).optional(),
      common: z.boolean(),
    }),
  ),
}).meta({ id: 'EmailTemplate' }) satisfies z.ZodType<EmailTemplateDetail>

export const EmailTemplateRenderedSchema = z.object(templateTexts).meta({ id: 'EmailTemplateRendered' }) satisfies z.ZodType<EmailTemplatePreview>
export const EmailTemplateTestResultSchema = z.object({ queued: z.literal(true), to: z.string(), subject: z.string() }).meta({ id: 'EmailTemplateTestResult' }) satisfies z.ZodType<EmailTemplateTestResult>

// ---- Support ----

export const SupportTicketSchema = z
  .object({
    id: z.uuid(),
    number: z.number().int().min(1),
    subject: z.string(),
    body: z.string(),
    status: z.enum(SUPPORT_STATUSES),
    openedBy: person.nullable(),
    assignee: person.nullable(),
    messageCount: count,
    attachmentCount: count,
    revision: recordRevision,
    createdAtUtc: utc,
    updatedAtUtc: utc,
    closedAtUtc: utc.nullable(),
  })
  .meta({ id: 'SupportTicket' }) satisfies z.ZodType<SupportTicket>

export const SupportTicketDetailSchema = SupportTicketSchema.extend({
  messages: z.array(z.object({ id: z.uuid(), author: person.nullable(), fromSupport: z.boolean(), body: z.string(), createdAtUtc: utc }) satisfies z.ZodType<SupportMessage>),
  attachments: z.array(SupportAttachmentSchema),
}).meta({ id: 'SupportTicketDetail' }) satisfies z.ZodType<SupportTicketDetail>

export const SupportTicketPageSchema = z.object({ items: z.array(SupportTicketSchema), nextCursor: z.string().nullable() }).meta({ id: 'SupportTicketPage' })
export const SupportAssigneeListSchema = z.object({ items: z.array(UserContactSchema satisfies z.ZodType<SupportAssignee>) })
export const SupportAttachmentListSchema = z.object({ items: z.array(SupportAttachmentSchema) })

// ---- Configuration ----

const category = z.enum(CONFIG_CATEGORIES)

export const ConfigTestResultSchema = z
  .object({
    kind: z.enum(CONFIG_TEST_KINDS),
    ok: z.boolean(),
    message: z.string(),
    detail: z.string().optional(),
    testedAtUtc: utc,
    testedBy: z.string().optional(),
    durationMs: z.number().min(0),
  })
  .meta({ id: 'ConfigTestResult' }) satisfies z.ZodType<ConfigTestResult>

export const ConfigSchemaResponseSchema = z.object({
  categories: z.array(
    z.object({
      key: category,
      title: z.string(),
      description: z.string(),
      schema: z.object({ type: z.literal('object'), properties: z.record(z.string(), z.record(z.string(), z.unknown())), required: z.array(z.string()).optional(), additionalProperties: z.boolean().optional() }).describe('JSON Schema of the category, with x-secret, x-applies, x-unit and x-enum-labels.'),
      tests: z.array(z.enum(CONFIG_TEST_KINDS)),
    }),
  ),
})

const configHeader = { version: count, configured: z.boolean(), updatedAtUtc: utc.nullable(), updatedBy: person.nullable(), lastTest: ConfigTestResultSchema.nullable() }

export const ConfigStatusSchema = z.object({
  categories: z.array(z.object({ category, title: z.string(), ...configHeader }) satisfies z.ZodType<ConfigStatusEntry>),
}) satisfies z.ZodType<ConfigStatusResponse>

export const ConfigCategoryValuesSchema = z
  .object({ category, ...configHeader, values: z.record(z.string(), z.unknown()), secrets: z.record(z.string(), z.object({ set: z.boolean() })), pendingRestart: z.array(z.string()) })
  .meta({ id: 'ConfigCategoryValues' }) satisfies z.ZodType<ConfigCategoryValues>

export const ConfigVersionsSchema = z.object({
  items: z.array(
    z.object({
      version: z.number().int(),
      changedAtUtc: utc,
      changedBy: person.nullable(),
      restoredFrom: z.number().int().nullable(),
      changes: z.array(z.object({ field: z.string(), before: z.unknown(), after: z.unknown() })),
    }) satisfies z.ZodType<ConfigVersion>,
  ),
}) satisfies z.ZodType<ConfigVersionsResponse>
export const SupportUploadSessionSchema = NewUploadSessionSchema
