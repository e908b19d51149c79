import type { TemplateDefinition } from './types'

/** The mails about a person's own account (sign-up, passwords, address changes). */
export const accountTemplates: TemplateDefinition[] = [
  {
    key: 'verify-email',
    title: 'Verify e-mail address',
    description: 'Sent when someone registers: the link that verifies their address and finishes registering.',
    variables: [
      { name: 'recipientName', description: 'The name the person registered with.', sample: 'Alex Morgan' },
      { name: 'verifyUrl', description: 'The verification link (works for 24 hours).', sample: 'https://portal.example.com/auth/verify-email?token=sample' },
    ],
    subject: 'Verify your e-mail address for {{siteName}}',
    html: `<p>Welcome to {{siteName}}, {{recipientName}}.</p>
<p>Verify your e-mail address to finish registering:</p>
<p><a href="{{verifyUrl}}">Verify my e-mail address</a></p>
<p>The link works for 24 hours.</p>`,
    text: `Welcome to {{siteName}}, {{recipientName}}.

Verify your e-mail address to finish registering:
{{verifyUrl}}

The link works for 24 hours.
`,
  },
  {
    key: 'account-exists',
    title: 'Account already exists',
    description: 'Sent instead of a verification link when someone registers with an address that already has an account.',
    variables: [
      { name: 'loginUrl', description: 'The sign-in page.', sample: 'https://portal.example.com/auth/login' },
      { name: 'forgotPasswordUrl', description: 'The page to reset a forgotten password.', sample: 'https://portal.example.com/auth/forgot-password' },
    ],
    subject: 'You already have a {{siteName}} account',
    html: `<p>Someone (hopefully you) tried to register with this address, which already has an account.</p>
<p><a href="{{loginUrl}}">Sign in</a></p>
<p>Forgot your password? <a href="{{forgotPasswordUrl}}">Choose a new one</a>.</p>`,
    text: `Someone (hopefully you) tried to register with this address, which already has an account.

Sign in: {{loginUrl}}
Forgot your password? {{forgotPasswordUrl}}
`,
  },
  {
    key: 'reset-password',
    title: 'Reset password',
    description: 'Sent when someone asks for a new password on the sign-in page.',
    variables: [{ name: 'resetUrl', description: 'The link to choose a new password (works for 1 hour).', sample: 'https://portal.example.com/auth/forgot-password?token=sample' }],
    subject: 'Reset your {{siteName}} password',
    html: `<p>Someone asked to reset the password of your {{siteName}} account.</p>
<p><a href="{{resetUrl}}">Choose a new password</a></p>
<p>The link works for 1 hour. If you did not ask for this, ignore this e-mail.</p>`,
    text: `Someone asked to reset the password of your {{siteName}} account.

Choose a new password:
{{resetUrl}}

The link works for 1 hour. If you did not ask for this, ignore this e-mail.
`,
  },
  {
    key: 'admin-password-reset',
    title: 'Password reset by an administrator',
    description: 'Sent when an administrator sends a member a password reset link from Administration › Users.',
    variables: [
      { name: 'recipientName', description: 'The member’s name.', sample: 'Alex Morgan' },
      { name: 'resetUrl', description: 'The link to choose a new password (works for 1 hour).', sample: 'https://portal.example.com/auth/forgot-password?token=sample' },
    ],
    subject: 'Reset your {{siteName}} password',
    html: `<p>An administrator of {{organisationName}} asked {{siteName}} to send you a link to choose a new password.</p>
<p><a href="{{resetUrl}}">Choose a new password</a></p>
<p>The link works for 1 hour. Your current password keeps working until you choose a new one.</p>`,
    text: `An administrator of {{organisationName}} asked {{siteName}} to send you a link to choose a new password.

Choose a new password:
{{resetUrl}}

The link works for 1 hour. Your current password keeps working until you choose a new one.
`,
  },
  {
    key: 'email-change',
    title: 'Confirm a new e-mail address',
    description: 'Sent to the new address when someone changes their e-mail address in Settings › User.',
    variables: [
      { name: 'displayName', description: 'The person’s name.', sample: 'Alex Morgan' },
      { name: 'newEmail', description: 'The new address, waiting for confirmation.', sample: 'alex.morgan@example.com' },
      { name: 'confirmUrl', description: 'The link that confirms the new address.', sample: 'https://portal.example.com/settings/user/confirm-email?token=sample' },
    ],
    subject: 'Confirm your new e-mail address for {{siteName}}',
    html: `<p>{{displayName}},</p>
<p>You asked to change the e-mail address of your {{siteName}} account to <strong>{{newEmail}}</strong>.</p>
<p><a href="{{confirmUrl}}">Confirm the new address</a></p>
<p>Until you confirm, your current address stays in use. If you did not ask for this, ignore this e-mail.</p>`,
    text: `{{displayName}},

You asked to change the e-mail address of your {{siteName}} account to {{newEmail}}.

Confirm the new address:
{{confirmUrl}}

Until you confirm, your current address stays in use. If you did not ask for this, ignore this e-mail.
`,
  },
  {
    key: 'email-changed',
    title: 'E-mail address changed',
    description: 'Sent to the old address once a change of e-mail address is confirmed, so that an owner who did not make it learns of it.',
    variables: [
      { name: 'displayName', description: 'The person’s name.', sample: 'Alex Morgan' },
      { name: 'newEmail', description: 'The address the account uses from now on.', sample: 'alex.morgan@example.com' },
    ],
    subject: 'The e-mail address of your {{siteName}} account was changed',
    html: `<p>{{displayName}},</p>
<p>The e-mail address of your {{siteName}} account was changed to <strong>{{newEmail}}</strong>. This address no longer signs in, and the account’s mail goes to the new one.</p>
<p>If you did not make this change, tell an administrator of your organisation at once: they can set your address and password back.</p>`,
    text: `{{displayName}},

The e-mail address of your {{siteName}} account was changed to {{newEmail}}. This address no longer signs in, and the account’s mail goes to the new one.

If you did not make this change, tell an administrator of your organisation at once: they can set your address and password back.
`,
  },
]
