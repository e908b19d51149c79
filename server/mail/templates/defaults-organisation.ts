import type { TemplateDefinition } from './types'

const MESSAGE_HTML = '{{#message}}<p>{{inviterName}} wrote:</p>\n<blockquote>{{message}}</blockquote>\n{{/message}}'

/** The mails about joining an organisation, and support. */
export const organisationTemplates: TemplateDefinition[] = [
  {
    key: 'invite',
    title: 'Invitation to the organisation',
    description: 'Sent when an administrator invites an address from Administration › Invites, and again on each resend.',
    variables: [
      { name: 'inviterName', description: 'Who sent the invitation.', sample: 'Sam Taylor' },
      { name: 'roleName', description: 'The role the person gets.', sample: 'Member' },
      {
        name: 'message',
        description: 'The inviter’s own words, when they wrote some (use as a section: {{#message}}…{{/message}}).',
        sample: 'Welcome aboard: the site meeting is on Monday.',
      },
      { name: 'acceptUrl', description: 'The invitation link (works for 7 days).', sample: 'https://portal.example.com/invite/sample' },
      { name: 'expiresAt', description: 'When the link stops working (UTC).', sample: 'Wed, 02 Dec 2026 09:00:00 GMT' },
    ],
    subject: '{{inviterName}} invited you to {{organisationName}} on {{siteName}}',
    html: `<p>{{inviterName}} invited you to join <strong>{{organisationName}}</strong> on {{siteName}} as {{roleName}}.</p>
${MESSAGE_HTML}<p><a href="{{acceptUrl}}">Accept the invitation</a></p>
<p>The link works until {{expiresAt}}. If you did not expect this, ignore this e-mail.</p>`,
    text: `{{inviterName}} invited you to join {{organisationName}} on {{siteName}} as {{roleName}}.{{#message}}

{{inviterName}} wrote:
{{message}}{{/message}}

Accept the invitation:
{{acceptUrl}}

The link works until {{expiresAt}}. If you did not expect this, ignore this e-mail.
`,
  },
  {
    key: 'project-invite',
    title: 'Invitation to a project',
    description: 'Sent when an administrator makes a project invitation for an e-mail address.',
    variables: [
      { name: 'inviterName', description: 'Who made the invitation.', sample: 'Sam Taylor' },
      { name: 'projectTitle', description: 'The project’s title.', sample: 'Harbour Bridge refurbishment' },
      { name: 'roleName', description: 'The role the person gets.', sample: 'Member' },
      { name: 'message', description: 'The inviter’s own words, when they wrote some (use as a section: {{#message}}…{{/message}}).', sample: 'You will review the drawings.' },
      { name: 'acceptUrl', description: 'The invitation link.', sample: 'https://portal.example.com/invite/project/sample' },
      { name: 'code', description: 'The code to type on the Join page instead of opening the link.', sample: 'ABCD-EFGH' },
      { name: 'expiresAt', description: 'When the invitation stops working (UTC).', sample: 'Wed, 02 Dec 2026 09:00:00 GMT' },
    ],
    subject: '{{inviterName}} invited you to the project {{projectTitle}} on {{siteName}}',
    html: `<p>{{inviterName}} invited you to the project <strong>“{{projectTitle}}”</strong> of {{organisationName}} on {{siteName}} as {{roleName}}.</p>
${MESSAGE_HTML}<p><a href="{{acceptUrl}}">Accept the invitation</a></p>
<p>Or, signed in, type the code <strong>{{code}}</strong> on the Join page.</p>
<p>The invitation works until {{expiresAt}}.</p>`,
    text: `{{inviterName}} invited you to the project “{{projectTitle}}” of {{organisationName}} on {{siteName}} as {{roleName}}.{{#message}}

{{inviterName}} wrote:
{{message}}{{/message}}

Accept the invitation:
{{acceptUrl}}

Or, signed in, type the code {{code}} on the Join page.

The invitation works until {{expiresAt}}.
`,
  },
  {
    key: 'join-request-received',
    title: 'Join request received',
    description: 'Sent to every administrator when someone asks to join the organisation.',
    variables: [
      { name: 'requesterName', description: 'Who asks to join.', sample: 'Jordan Lee' },
      { name: 'requesterEmail', description: 'Their e-mail address.', sample: 'jordan.lee@example.com' },
      { name: 'message', description: 'Their message, when they wrote one (use as a section: {{#message}}…{{/message}}).', sample: 'I am the new site engineer.' },
      { name: 'reviewUrl', description: 'Administration › Join requests.', sample: 'https://portal.example.com/admin/join-requests' },
    ],
    subject: '{{requesterName}} asks to join {{organisationName}}',
    html: `<p>{{requesterName}} ({{requesterEmail}}) asks to join {{organisationName}} on {{siteName}}.</p>
{{#message}}<p>Their message:</p>
<blockquote>{{message}}</blockquote>
{{/message}}<p><a href="{{reviewUrl}}">Approve with a role, or decline with a reason</a></p>`,
    text: `{{requesterName}} ({{requesterEmail}}) asks to join {{organisationName}} on {{siteName}}.

{{#message}}Their message:
{{message}}

{{/message}}Approve with a role, or decline with a reason:
{{reviewUrl}}
`,
  },
  {
    key: 'join-request-decided',
    title: 'Join request approved or declined',
    description: 'Sent to the person who asked to join when an administrator approves or declines the request.',
    variables: [
      { name: 'approved', description: 'Yes when approved: {{#approved}}…{{/approved}} is shown when approved, {{^approved}}…{{/approved}} when declined.', sample: true },
      { name: 'roleName', description: 'The role given (when approved).', sample: 'Member' },
      { name: 'reason', description: 'The reason given (when declined).', sample: 'We only add staff of the main contractor.' },
      { name: 'loginUrl', description: 'The sign-in page.', sample: 'https://portal.example.com/auth/login' },
      { name: 'requestsUrl', description: 'The person’s own join requests.', sample: 'https://portal.example.com/join' },
    ],
    subject: '{{#approved}}You have joined {{organisationName}}{{/approved}}{{^approved}}Your request to join {{organisationName}} was declined{{/approved}}',
    html: `{{#approved}}<p>Your request to join {{organisationName}} on {{siteName}} was approved. Your role: {{roleName}}.</p>
<p><a href="{{loginUrl}}">Sign in and switch to {{organisationName}}</a></p>
{{/approved}}{{^approved}}<p>Your request to join {{organisationName}} on {{siteName}} was declined.</p>
<p>The reason given:</p>
<blockquote>{{reason}}</blockquote>
<p><a href="{{requestsUrl}}">Your requests</a></p>
{{/approved}}`,
    text: `{{#approved}}Your request to join {{organisationName}} on {{siteName}} was approved. Your role: {{roleName}}.

Sign in and switch to {{organisationName}}:
{{loginUrl}}
{{/approved}}{{^approved}}Your request to join {{organisationName}} on {{siteName}} was declined.

The reason given:
{{reason}}

Your requests: {{requestsUrl}}
{{/approved}}`,
  },
  {
    key: 'support-reply',
    title: 'Support ticket message',
    description: 'Sent to support (the assignee, or every administrator) when a member opens a ticket or replies, and to the member who opened it when support replies.',
    variables: [
      { name: 'recipientName', description: 'Who receives it.', sample: 'Sam Taylor' },
      { name: 'toSupport', description: 'Yes when the mail goes to support, no when it goes to the member who opened the ticket (use as a section).', sample: true },
      { name: 'opened', description: 'Yes when the ticket was just opened, no for a reply (use as a section).', sample: false },
      { name: 'writerName', description: 'Who wrote the message.', sample: 'Jordan Lee' },
      { name: 'ticketLabel', description: 'The ticket’s number and subject.', sample: '#12 Cannot upload drawings' },
      { name: 'message', description: 'The message written.', sample: 'The upload stops at 90% every time.' },
      { name: 'ticketUrl', description: 'The ticket’s page.', sample: 'https://portal.example.com/admin/support/sample' },
    ],
    subject:
      '{{#toSupport}}{{#opened}}New support ticket {{ticketLabel}}{{/opened}}{{^opened}}Reply on support ticket {{ticketLabel}}{{/opened}}{{/toSupport}}{{^toSupport}}Support replied: {{ticketLabel}}{{/toSupport}}',
    html: `<p>{{recipientName}},</p>
{{#toSupport}}<p>{{writerName}} {{#opened}}opened a support ticket{{/opened}}{{^opened}}replied on a support ticket{{/opened}}: <strong>{{ticketLabel}}</strong>.</p>
<blockquote>{{message}}</blockquote>
<p><a href="{{ticketUrl}}">Open the ticket</a></p>
{{/toSupport}}{{^toSupport}}<p>Support replied on your ticket <strong>{{ticketLabel}}</strong>:</p>
<blockquote>{{message}}</blockquote>
<p><a href="{{ticketUrl}}">Read and answer it</a></p>
{{/toSupport}}`,
    text: `{{recipientName}},

{{#toSupport}}{{writerName}} {{#opened}}opened a support ticket{{/opened}}{{^opened}}replied on a support ticket{{/opened}}: {{ticketLabel}}.

{{message}}

Open the ticket: {{ticketUrl}}
{{/toSupport}}{{^toSupport}}Support replied on your ticket {{ticketLabel}}:

{{message}}

Read and answer it: {{ticketUrl}}
{{/toSupport}}`,
  },
]
