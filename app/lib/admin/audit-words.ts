import { roleKeyLabel } from '~/lib/auth/role'
import type { AuditEntry } from './audit'

/** What each recorded action did, as the rest of a sentence that starts with who did it. */
const DID: Record<string, string> = {
  'admin.audit.exported': 'exported the audit log',
  'admin.audit.verified': 'verified the audit log’s chain',
  'admin.config.changed': 'changed the configuration',
  'admin.config.tested': 'tested a configuration setting',
  'admin.device.revoked': 'revoked a device',
  'admin.invite.cancelled': 'cancelled an invite',
  'admin.invite.claimed': 'claimed an invite',
  'admin.invite.created': 'sent an invite',
  'admin.invite.resent': 'sent an invite again',
  'admin.mail.cancelled': 'cancelled a message in the outbox',
  'admin.mail.retried': 'retried a message in the outbox',
  'admin.member.added': 'added a member',
  'admin.package.changed': 'changed a package',
  'admin.retention.changed': 'changed the retention policy',
  'admin.retention.ran': 'ran the retention policy',
  'admin.support.changed': 'changed a support ticket',
  'admin.support.opened': 'opened a support ticket',
  'admin.support.replied': 'replied to a support ticket',
  'admin.upload.aborted': 'stopped an upload',
  'admin.user.changed': 'changed a member’s details',
  'admin.user.deactivated': 'suspended a member',
  'admin.user.deleted': 'removed a member',
  'admin.user.password.reset': 'sent a member a password reset',
  'admin.user.password.set': 'set a member’s password',
  'admin.user.reactivated': 'reactivated a member',
  'auth.device.registered': 'registered a device',
  'auth.device.revoked': 'revoked one of their devices',
  'auth.email.change.requested': 'asked to change their e-mail address',
  'auth.email.changed': 'changed their e-mail address',
  'auth.email.verified': 'confirmed their e-mail address',
  'auth.lockout': 'was locked out after failed sign-ins',
  'auth.mfa.enrolled': 'set up a second factor',
  'auth.mfa.failed': 'entered a wrong authentication code',
  'auth.mfa.removed': 'removed their second factor',
  'auth.mfa.verified': 'entered their authentication code',
  'auth.oidc.failed': 'failed to sign in through the identity provider',
  'auth.oidc.linked': 'linked their identity-provider account',
  'auth.password.changed': 'changed their password',
  'auth.password.reset': 'reset their password',
  'auth.password.reset.requested': 'asked for a password reset',
  'auth.registered': 'registered',
  'auth.sessions.revoked': 'signed out everywhere',
  'auth.signin': 'signed in',
  'auth.signin.failed': 'failed to sign in',
  'auth.signout': 'signed out',
  'billing.checkout.completed': 'completed a checkout',
  'billing.checkout.started': 'started a checkout',
  'billing.licence.changed': 'changed the licence',
  'billing.store.linked': 'linked an app-store subscription',
  'billing.store.verified': 'verified an app-store subscription',
  'documents.document.changed': 'changed a document',
  'documents.document.created': 'created a document',
  'documents.fields.changed': 'changed the document fields',
  'documents.folder.changed': 'changed a folder',
  'documents.folder.created': 'created a folder',
  'documents.metadata.changed': 'changed a document’s details',
  'documents.naming.changed': 'changed the naming standard',
  'documents.overlay.changed': 'changed the drawings overlay',
  'documents.permissions.changed': 'changed document permissions',
  'documents.pin.placed': 'placed a pin on a drawing',
  'documents.pin.removed': 'removed a pin from a drawing',
  'documents.revision.issued': 'issued a revision',
  'licensing.licence.changed': 'changed the licence',
  'licensing.organisation.created': 'created the organisation',
  'licensing.organisation.switched': 'switched organisation',
  'licensing.seat.revoked': 'revoked a seat',
  'settings.admin.changed': 'changed the organisation’s settings',
  'settings.appearance.changed': 'changed their appearance settings',
  'settings.notifications.changed': 'changed their notification settings',
  'settings.site.changed': 'changed their site settings',
  'settings.user.changed': 'changed their profile',
}

/** The words of a sentence that stand for its target, by the target's kind, and what the target's name becomes there. */
const TARGET_WORDS: Record<string, { words: RegExp; named: (name: string) => string }> = {
  User: { words: /\ba member\b/, named: (name) => name },
  user: { words: /\ba member\b/, named: (name) => name },
  Document: { words: /\ba document\b/, named: (name) => `document ${name}` },
  DocumentFolder: { words: /\ba folder\b/, named: (name) => `the folder “${name}”` },
  Project: { words: /\ba project\b/, named: (name) => `the project “${name}”` },
}

/** The rest of the sentence with the target named where the log knows its name ("suspended Sam Site"). */
function naming(did: string, entry: Pick<AuditEntry, 'targetType' | 'targetName'>): string {
  const words = entry.targetType ? TARGET_WORDS[entry.targetType] : undefined
  if (!words || !entry.targetName) return did
  const name = words.named(entry.targetName)
  return did.replace(words.words, () => name)
}

/**
 * The entry as a sentence a person reads ("Alex Admin changed Sam Site’s role to Read Only (was
 * Site Manager)"), naming the target where the log knows its name; the action's key and the ids
 * stay behind the row's details toggle.
 */
export function auditSentence(entry: Pick<AuditEntry, 'action' | 'actor' | 'data'> & Partial<Pick<AuditEntry, 'targetType' | 'targetName'>>): string {
  const who = entry.actor ? (entry.actor.displayName ?? 'A removed user') : 'The system'
  const target = { targetType: entry.targetType ?? null, targetName: entry.targetName ?? null }
  if (entry.action === 'admin.member.role.changed') {
    const from = typeof entry.data?.from === 'string' ? roleKeyLabel(entry.data.from) : null
    const to = typeof entry.data?.to === 'string' ? roleKeyLabel(entry.data.to) : null
    const whose = naming('a member’s', target)
    if (from && to) return `${who} changed ${whose} role to ${to} (was ${from})`
    return `${who} changed ${whose} role`
  }
  const did = DID[entry.action] ?? `did “${entry.action.split('.').join(' ')}”`
  return `${who} ${naming(did, target)}`
}

/** An action's name in a list of actions (the audit filter): "Signed in", "Changed a member’s role". */
export function auditActionLabel(action: string): string {
  const did = action === 'admin.member.role.changed' ? 'changed a member’s role' : (DID[action] ?? action.split('.').join(' '))
  return did.charAt(0).toUpperCase() + did.slice(1)
}
