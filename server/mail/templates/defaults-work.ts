import type { TemplateDefinition, TemplateField, TemplateVariable } from './types'

const REVISION_FIELDS: TemplateField[] = [
  { name: 'number', description: 'The document number.', sample: 'HB-DR-0101' },
  { name: 'code', description: 'The revision code.', sample: 'P02' },
  { name: 'status', description: 'The revision’s status.', sample: 'S3' },
  { name: 'title', description: 'The document title.', sample: 'General arrangement, level 1' },
]
const REVISION_SAMPLES = [
  { number: 'HB-DR-0101', code: 'P02', status: 'S3', title: 'General arrangement, level 1' },
  { number: 'HB-DR-0102', code: 'P01', status: 'S2', title: 'Sections A–A and B–B' },
]
const ITEM_VARIABLES: TemplateVariable[] = [
  { name: 'itemTitle', description: 'The item’s title.', sample: 'Cracked kerb at gate 3' },
  { name: 'itemUrl', description: 'The item’s page.', sample: 'https://portal.example.com/items/sample' },
  { name: 'projectName', description: 'The item’s project.', sample: 'Harbour Bridge refurbishment' },
]

/** The mails about work: review tasks, transmittals, items and the daily digest. */
export const workTemplates: TemplateDefinition[] = [
  {
    key: 'workflow-review',
    title: 'Review requested',
    description: 'Sent to each reviewer of a workflow step when the step begins (unless they switched review-task mail off).',
    variables: [
      { name: 'recipientName', description: 'The reviewer’s name.', sample: 'Jordan Lee' },
      { name: 'requesterName', description: 'Who started the review.', sample: 'Sam Taylor' },
      { name: 'reviewLabel', description: 'The review’s first document and revision, and how many more.', sample: 'HB-DR-0101 P02 and 1 more' },
      { name: 'stepName', description: 'The step of the workflow.', sample: 'Technical check' },
      { name: 'workflowName', description: 'The workflow template’s name.', sample: 'Design review' },
      { name: 'dueAt', description: 'When the step is due (UTC).', sample: '2026-12-02 17:00 UTC' },
      { name: 'revisions', description: 'The revisions under review (a list: {{#revisions}}…{{/revisions}}).', sample: '', fields: REVISION_FIELDS, samples: REVISION_SAMPLES },
      { name: 'message', description: 'The requester’s message, when there is one (use as a section).', sample: 'Please check the levels against the survey.' },
      { name: 'reviewUrl', description: 'The review’s page.', sample: 'https://portal.example.com/doc-control/workflows/sample' },
    ],
    subject: 'Review requested: {{reviewLabel}}',
    html: `<p>{{recipientName}},</p>
<p>{{requesterName}} asks you to review <strong>{{reviewLabel}}</strong> at the step “{{stepName}}” ({{workflowName}}).<br>Due: {{dueAt}}.</p>
<ul>
{{#revisions}}<li>{{number}} {{code}} ({{status}}): {{title}}</li>
{{/revisions}}</ul>
{{#message}}<p>Message:</p>
<blockquote>{{message}}</blockquote>
{{/message}}<p><a href="{{reviewUrl}}">Open the review</a></p>`,
    text: `{{recipientName}},

{{requesterName}} asks you to review {{reviewLabel}} at the step “{{stepName}}” ({{workflowName}}).
Due: {{dueAt}}.

{{#revisions}}- {{number}} {{code}} ({{status}}): {{title}}
{{/revisions}}{{#message}}

Message:
{{message}}
{{/message}}

Open the review: {{reviewUrl}}
`,
  },
  {
    key: 'workflow-due',
    title: 'Review due soon',
    description: 'The reminder sent to a reviewer the day before their review task is due (unless they switched review-task mail off).',
    variables: [
      { name: 'recipientName', description: 'The reviewer’s name.', sample: 'Jordan Lee' },
      { name: 'reviewLabel', description: 'The review’s first document and revision, and how many more.', sample: 'HB-DR-0101 P02 and 1 more' },
      { name: 'stepName', description: 'The step of the workflow.', sample: 'Technical check' },
      { name: 'dueAt', description: 'When the task is due (UTC).', sample: '2026-12-02 17:00 UTC' },
      { name: 'reviewUrl', description: 'The review’s page.', sample: 'https://portal.example.com/doc-control/workflows/sample' },
    ],
    subject: 'Review due {{dueAt}}: {{reviewLabel}}',
    html: `<p>{{recipientName}},</p>
<p>Your review of <strong>{{reviewLabel}}</strong> at the step “{{stepName}}” is due {{dueAt}}.</p>
<p><a href="{{reviewUrl}}">Open the review</a></p>`,
    text: `{{recipientName}},

Your review of {{reviewLabel}} at the step “{{stepName}}” is due {{dueAt}}.

Open the review: {{reviewUrl}}
`,
  },
  {
    key: 'transmittal-sent',
    title: 'Transmittal received',
    description: 'Sent to each recipient of a transmittal when it is sent (unless they switched transmittal mail off).',
    variables: [
      { name: 'recipientName', description: 'The recipient’s name.', sample: 'Jordan Lee' },
      { name: 'senderName', description: 'Who sent the transmittal.', sample: 'Sam Taylor' },
      { name: 'transmittalNumber', description: 'The transmittal’s number.', sample: 'TR-0007' },
      { name: 'transmittalSubject', description: 'The transmittal’s subject.', sample: 'Issued for construction: level 1' },
      { name: 'purpose', description: 'Why it was issued, in lower case.', sample: 'for construction' },
      { name: 'responseDue', description: 'The response due date, when there is one (use as a section).', sample: '2026-12-09' },
      { name: 'message', description: 'The sender’s message, when there is one (use as a section).', sample: 'Please acknowledge by Friday.' },
      { name: 'documentCount', description: 'How many documents it holds.', sample: 2 },
      { name: 'documents', description: 'The revisions sent (a list: {{#documents}}…{{/documents}}).', sample: '', fields: REVISION_FIELDS, samples: REVISION_SAMPLES },
      { name: 'transmittalUrl', description: 'The transmittal’s page.', sample: 'https://portal.example.com/doc-control/transmittals/sample' },
    ],
    subject: 'Transmittal {{transmittalNumber}}: {{transmittalSubject}}',
    html: `<p>{{senderName}} sent you transmittal <strong>{{transmittalNumber}}</strong>, {{purpose}}.</p>
<p>Subject: {{transmittalSubject}}{{#responseDue}}<br>Response due: {{responseDue}}{{/responseDue}}</p>
{{#message}}<blockquote>{{message}}</blockquote>
{{/message}}<p>Documents ({{documentCount}}):</p>
<ul>
{{#documents}}<li>{{number}} {{code}} ({{status}}) {{title}}</li>
{{/documents}}</ul>
<p><a href="{{transmittalUrl}}">Open it, download the documents and acknowledge receipt</a></p>`,
    text: `{{senderName}} sent you transmittal {{transmittalNumber}}, {{purpose}}.

Subject: {{transmittalSubject}}
{{#responseDue}}Response due: {{responseDue}}
{{/responseDue}}{{#message}}

{{message}}
{{/message}}

Documents ({{documentCount}}):
{{#documents}}- {{number}} {{code}} ({{status}}) {{title}}
{{/documents}}

Open it, download the documents and acknowledge receipt:
{{transmittalUrl}}
`,
  },
  {
    key: 'document-renumbered',
    title: 'Document renumbered',
    description: 'Sent to everyone who received a document by transmittal when a document controller renumbers it (unless they switched transmittal mail off).',
    variables: [
      { name: 'recipientName', description: 'The recipient’s name.', sample: 'Jordan Lee' },
      { name: 'renumberedBy', description: 'Who renumbered it.', sample: 'Sam Taylor' },
      { name: 'oldNumber', description: 'The number it had, as the recipient received it.', sample: 'HB-ARC-Z1-01-DR-A-0101' },
      { name: 'newNumber', description: 'Its number now.', sample: 'HB-ARC-Z1-01-DR-S-0101' },
      { name: 'title', description: 'The document title.', sample: 'General arrangement, level 1' },
      { name: 'reason', description: 'Why it was renumbered.', sample: 'Issued under the wrong role code.' },
      { name: 'documentUrl', description: 'The document’s page.', sample: 'https://portal.example.com/documents/sample' },
    ],
    subject: 'Renumbered: {{oldNumber}} is now {{newNumber}}',
    html: `<p>{{renumberedBy}} renumbered a document you received by transmittal.</p>
<p><strong>{{oldNumber}}</strong> is now <strong>{{newNumber}}</strong> ({{title}}).</p>
<p>Reason: {{reason}}</p>
<p><a href="{{documentUrl}}">Open the document</a></p>`,
    text: `{{renumberedBy}} renumbered a document you received by transmittal.

{{oldNumber}} is now {{newNumber}} ({{title}}).
Reason: {{reason}}

Open the document:
{{documentUrl}}
`,
  },
  {
    key: 'revision-superseded',
    title: 'Revision superseded',
    description:
      'Sent once to everyone who received a revision by transmittal when a newer revision of its document supersedes it: members (unless they switched transmittal mail off) and outside contacts, whose mail holds their link again.',
    variables: [
      { name: 'recipientName', description: 'The recipient’s name.', sample: 'Jordan Lee' },
      { name: 'documentNumber', description: 'The document number.', sample: 'HB-ARC-Z1-01-DR-A-0101' },
      { name: 'documentTitle', description: 'The document title.', sample: 'General arrangement, level 1' },
      { name: 'oldCode', description: 'The revision the recipient received.', sample: 'C01' },
      { name: 'newCode', description: 'The revision that supersedes it.', sample: 'C02' },
      { name: 'newStatus', description: 'The new revision’s suitability.', sample: 'A1' },
      { name: 'supersededBy', description: 'Who issued the new revision.', sample: 'Sam Taylor' },
      { name: 'transmittalNumber', description: 'The transmittal the recipient received the old revision with (the newest, when several).', sample: 'HB-TRN-0007' },
      { name: 'senderName', description: 'Who sent that transmittal.', sample: 'Sam Taylor' },
      { name: 'outside', description: 'Yes for an outside contact (no account; the new revision reaches them only by a new transmittal). Use as a section.', sample: true },
      { name: 'openUrl', description: 'Where to look: the document’s page for a member who may view it, else the transmittal’s page (an outside contact’s own link); empty when an outside contact’s link has expired (use as a section).', sample: 'https://portal.example.com/shared/transmittals/sample' },
      { name: 'openLabel', description: 'The words of that link.', sample: 'Open transmittal HB-TRN-0007' },
    ],
    subject: 'Superseded: {{documentNumber}} {{oldCode}} is replaced by {{newCode}}',
    html: `<p>{{recipientName}},</p>
<p><strong>{{documentNumber}} {{oldCode}}</strong> ({{documentTitle}}), which you received with transmittal {{transmittalNumber}}, is superseded by revision <strong>{{newCode}}</strong> ({{newStatus}}), issued by {{supersededBy}}. Check before you use {{oldCode}} again.</p>
{{#outside}}<p>{{newCode}} is not part of transmittal {{transmittalNumber}}: it reaches you by a new transmittal. Ask {{senderName}} ({{organisationName}}) if you need it.</p>
{{/outside}}{{#openUrl}}<p><a href="{{openUrl}}">{{openLabel}}</a></p>
{{/openUrl}}{{^openUrl}}<p>Your link to transmittal {{transmittalNumber}} has expired: ask {{senderName}} to send it again.</p>
{{/openUrl}}`,
    text: `{{recipientName}},

{{documentNumber}} {{oldCode}} ({{documentTitle}}), which you received with transmittal {{transmittalNumber}}, is superseded by revision {{newCode}} ({{newStatus}}), issued by {{supersededBy}}. Check before you use {{oldCode}} again.
{{#outside}}

{{newCode}} is not part of transmittal {{transmittalNumber}}: it reaches you by a new transmittal. Ask {{senderName}} ({{organisationName}}) if you need it.
{{/outside}}
{{#openUrl}}
{{openLabel}}:
{{openUrl}}
{{/openUrl}}{{^openUrl}}
Your link to transmittal {{transmittalNumber}} has expired: ask {{senderName}} to send it again.
{{/openUrl}}
`,
  },
  {
    key: 'item-assigned',
    title: 'Item assigned',
    description: 'Sent to a member when an item is assigned to them (unless they switched it off).',
    variables: [
      ...ITEM_VARIABLES,
      { name: 'assignedBy', description: 'Who assigned it.', sample: 'Sam Taylor' },
      { name: 'dueDate', description: 'When it is due, when it has a due date (use as a section).', sample: '2026-12-04' },
    ],
    subject: 'Assigned to you: {{itemTitle}}',
    html: `<p>{{assignedBy}} assigned you an item in {{projectName}}: <strong>{{itemTitle}}</strong>.</p>
{{#dueDate}}<p>Due: {{dueDate}}.</p>
{{/dueDate}}<p><a href="{{itemUrl}}">Open the item</a></p>`,
    text: `{{assignedBy}} assigned you an item in {{projectName}}: {{itemTitle}}.
{{#dueDate}}Due: {{dueDate}}.
{{/dueDate}}

Open it: {{itemUrl}}
`,
  },
  {
    key: 'item-response',
    title: 'Response on an item',
    description: 'Sent to the people following an item when someone responds on it (unless they switched it off).',
    variables: [
      ...ITEM_VARIABLES,
      { name: 'responderName', description: 'Who responded.', sample: 'Jordan Lee' },
      { name: 'responseExcerpt', description: 'The start of the response.', sample: 'Replaced the kerb stone; photos attached.' },
    ],
    subject: 'New response on {{itemTitle}}',
    html: `<p>{{responderName}} responded on <strong>{{itemTitle}}</strong> in {{projectName}}:</p>
<blockquote>{{responseExcerpt}}</blockquote>
<p><a href="{{itemUrl}}">Open the item</a></p>`,
    text: `{{responderName}} responded on {{itemTitle}} in {{projectName}}:

{{responseExcerpt}}

Open it: {{itemUrl}}
`,
  },
  {
    key: 'item-close-requested',
    title: 'Close requested',
    description: 'Sent to an item’s owner when someone asks to close it (unless they switched it off).',
    variables: [...ITEM_VARIABLES, { name: 'requestedBy', description: 'Who asks to close it.', sample: 'Jordan Lee' }],
    subject: 'Close requested: {{itemTitle}}',
    html: `<p>{{requestedBy}} asks to close <strong>{{itemTitle}}</strong> in {{projectName}}.</p>
<p><a href="{{itemUrl}}">Review it, and close it or send it back</a></p>`,
    text: `{{requestedBy}} asks to close {{itemTitle}} in {{projectName}}.

Review it, and close it or send it back: {{itemUrl}}
`,
  },
  {
    key: 'export-ready',
    title: 'Export ready',
    description: 'Sent to a member who asked for a mail when their large export (a report or punch list PDF run in the background) is ready or has failed.',
    variables: [
      { name: 'recipientName', description: 'The member’s name.', sample: 'Jordan Lee' },
      { name: 'exportTitle', description: 'What was exported.', sample: 'Report PDF: Level 3 walkdown' },
      { name: 'outcome', description: '“is ready”, or “failed”.', sample: 'is ready' },
      { name: 'error', description: 'Why it failed, when it failed (use as a section).', sample: '' },
      { name: 'expiresAt', description: 'Until when the download link works (UTC), when it is ready.', sample: '2026-12-02 17:00 UTC' },
      { name: 'exportUrl', description: 'The export’s page: its download link, or “Run again”.', sample: 'https://portal.example.com/exports/sample' },
    ],
    subject: 'Your export {{outcome}}: {{exportTitle}}',
    html: `<p>{{recipientName}},</p>
<p>Your export <strong>{{exportTitle}}</strong> {{outcome}}.</p>
{{#error}}<p>Why: {{error}}</p>
{{/error}}{{#expiresAt}}<p>Its download link works until {{expiresAt}}, for you only (sign in to download).</p>
{{/expiresAt}}<p><a href="{{exportUrl}}">Open the export</a></p>`,
    text: `{{recipientName}},

Your export {{exportTitle}} {{outcome}}.
{{#error}}Why: {{error}}
{{/error}}{{#expiresAt}}Its download link works until {{expiresAt}}, for you only (sign in to download).
{{/expiresAt}}
Open the export: {{exportUrl}}
`,
  },
  {
    key: 'digest',
    title: 'Daily digest',
    description: 'The daily summary of a member’s open items, for members who chose a daily digest in Settings › Notifications.',
    variables: [
      { name: 'recipientName', description: 'The member’s name.', sample: 'Jordan Lee' },
      { name: 'itemsUrl', description: 'The member’s items.', sample: 'https://portal.example.com/items' },
      { name: 'openAssignedCount', description: 'How many open items are assigned to them.', sample: 2 },
      { name: 'overdueCount', description: 'How many of those are overdue.', sample: 1 },
      {
        name: 'items',
        description: 'The open items (a list: {{#items}}…{{/items}}).',
        sample: '',
        fields: [
          { name: 'title', description: 'The item’s title.', sample: 'Cracked kerb at gate 3' },
          { name: 'url', description: 'The item’s page.', sample: 'https://portal.example.com/items/sample' },
          { name: 'projectName', description: 'The item’s project.', sample: 'Harbour Bridge refurbishment' },
          { name: 'dueDate', description: 'When it is due, if it has a due date.', sample: '2026-12-04' },
          { name: 'status', description: 'Its status.', sample: 'Open' },
        ],
        samples: [
          {
            title: 'Cracked kerb at gate 3',
            url: 'https://portal.example.com/items/sample-1',
            projectName: 'Harbour Bridge refurbishment',
            dueDate: '2026-11-20',
            status: 'Overdue',
          },
          {
            title: 'Missing handrail, stair B',
            url: 'https://portal.example.com/items/sample-2',
            projectName: 'Harbour Bridge refurbishment',
            dueDate: '2026-12-04',
            status: 'Open',
          },
        ],
      },
    ],
    subject: 'Your items on {{siteName}}: {{openAssignedCount}} open, {{overdueCount}} overdue',
    html: `<p>{{recipientName}},</p>
<p>You have {{openAssignedCount}} open items assigned to you, {{overdueCount}} of them overdue.</p>
<ul>
{{#items}}<li><a href="{{url}}">{{title}}</a> ({{projectName}}){{#dueDate}}, due {{dueDate}}{{/dueDate}}: {{status}}</li>
{{/items}}</ul>
<p><a href="{{itemsUrl}}">All your items</a></p>`,
    text: `{{recipientName}},

You have {{openAssignedCount}} open items assigned to you, {{overdueCount}} of them overdue.

{{#items}}- {{title}} ({{projectName}}){{#dueDate}}, due {{dueDate}}{{/dueDate}}: {{status}}
  {{url}}
{{/items}}

All your items: {{itemsUrl}}
`,
  },
]
