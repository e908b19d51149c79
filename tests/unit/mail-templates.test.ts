import { describe, expect, test } from 'vitest'
import type { MailTemplateKey } from '#server/mail/templates/types'
import { requireDefinition, sampleVariables, templateDefinitions } from '#server/mail/templates/registry'
import { renderTemplate, validateTemplate } from '#server/mail/templates/render'
import { sanitizeHtml } from '#server/mail/templates/sanitize'

const ALL_KEYS: MailTemplateKey[] = [
  'verify-email',
  'reset-password',
  'account-exists',
  'workflow-review',
  'workflow-due',
  'transmittal-sent',
  'document-renumbered',
  'revision-superseded',
  'invite',
  'project-invite',
  'join-request-received',
  'join-request-decided',
  'support-reply',
  'admin-password-reset',
  'email-change',
  'email-changed',
  'item-assigned',
  'item-response',
  'item-close-requested',
  'digest',
  'export-ready',
]

const common = { siteName: 'Site Portal', organisationName: 'Northwind', publicUrl: 'https://portal.test' }

test('every mail the product sends has a definition, and every default passes its own checks', () => {
  expect(
    templateDefinitions()
      .map((d) => d.key)
      .sort(),
  ).toEqual([...ALL_KEYS].sort())
  for (const definition of templateDefinitions()) {
    expect(definition.title).not.toBe('')
    expect(validateTemplate(definition, definition), definition.key).toEqual({})
  }
})

test('every default renders with its sample data: a subject, the layout around the HTML, and a plain-text part', async () => {
  for (const definition of templateDefinitions()) {
    const mail = await renderTemplate(definition, sampleVariables(definition))
    expect(mail.subject, definition.key).not.toBe('')
    expect(mail.subject).not.toContain('{{')
    expect(mail.text.trim(), definition.key).not.toBe('')
    expect(mail.html).toMatch(/^<!doctype html>/i)
    // The MJML layout: its responsive media query, the site name as header, the footer.
    expect(mail.html).toContain('@media only screen')
    expect(mail.html).toContain('Sent by Site Portal')
    expect(mail.html).not.toContain('%%SP_')
    // Nothing is loaded from elsewhere (MJML's default web fonts are off).
    expect(mail.html).not.toContain('fonts.googleapis.com')
  }
})

test('values are HTML-escaped in the HTML body, not in the subject and the text', async () => {
  const definition = requireDefinition('invite')
  const mail = await renderTemplate(definition, {
    ...common,
    inviterName: 'Tom & <b>Jerry</b>',
    roleName: 'Member',
    message: '<script>alert(1)</script>',
    acceptUrl: 'https://portal.test/invite/abc?x=1&y=2',
    expiresAt: 'soon',
  })
  expect(mail.subject).toBe('Tom & <b>Jerry</b> invited you to Northwind on Site Portal')
  expect(mail.text).toContain('Tom & <b>Jerry</b> wrote:\n<script>alert(1)</script>')
  expect(mail.html).toContain('Tom &amp; &lt;b&gt;Jerry&lt;/b&gt;')
  expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
  expect(mail.html).not.toContain('<script>alert')
  expect(mail.html).toContain('href="https://portal.test/invite/abc?x=1&amp;y=2"')
})

test('the converted mails read as they did before templates (invite, with and without a message)', async () => {
  const definition = requireDefinition('invite')
  const vars = { ...common, inviterName: 'Sam', roleName: 'Member', acceptUrl: 'https://portal.test/invite/t', expiresAt: 'Wed, 02 Dec 2026 09:00:00 GMT' }
  const without = await renderTemplate(definition, { ...vars, message: null })
  expect(without.text).toBe(
    'Sam invited you to join Northwind on Site Portal as Member.\n\nAccept the invitation:\nhttps://portal.test/invite/t\n\nThe link works until Wed, 02 Dec 2026 09:00:00 GMT. If you did not expect this, ignore this e-mail.\n',
  )
  const withMessage = await renderTemplate(definition, { ...vars, message: 'Hello' })
  expect(withMessage.text).toContain('as Member.\n\nSam wrote:\nHello\n\nAccept the invitation:')
})

test('a review request lists the revisions (a section over a list) and its message only when there is one', async () => {
  const definition = requireDefinition('workflow-review')
  const revisions = [
    { number: 'N1', code: 'P1', status: 'S1', title: 'T1' },
    { number: 'N2', code: 'P2', status: 'S2', title: 'T2' },
  ]
  const vars = {
    ...common,
    recipientName: 'Rec',
    requesterName: 'Req',
    reviewLabel: 'N1 P1 and 1 more',
    stepName: 'Step',
    workflowName: 'WF',
    dueAt: 'D',
    revisions,
    reviewUrl: 'U',
  }
  const head = 'Rec,\n\nReq asks you to review N1 P1 and 1 more at the step “Step” (WF).\nDue: D.\n\n- N1 P1 (S1): T1\n- N2 P2 (S2): T2\n'
  expect((await renderTemplate(definition, { ...vars, message: 'Look' })).text).toBe(`${head}\nMessage:\nLook\n\nOpen the review: U\n`)
  expect((await renderTemplate(definition, { ...vars, message: null })).text).toBe(`${head}\nOpen the review: U\n`)
  expect((await renderTemplate(definition, { ...vars, message: null })).html).toContain('<li>N2 P2 (S2): T2</li>')
})

test('a transmittal reads as before, with and without a due date and a message', async () => {
  const definition = requireDefinition('transmittal-sent')
  const vars = {
    ...common,
    senderName: 'Sam',
    transmittalNumber: 'TR-1',
    transmittalSubject: 'IFC',
    purpose: 'for construction',
    documentCount: 1,
    documents: [{ number: 'N1', code: 'P1', status: 'S1', title: 'T1' }],
    transmittalUrl: 'L',
  }
  const tail = '\nDocuments (1):\n- N1 P1 (S1) T1\n\nOpen it, download the documents and acknowledge receipt:\nL\n'
  expect((await renderTemplate(definition, { ...vars, responseDue: null, message: null })).text).toBe(`Sam sent you transmittal TR-1, for construction.\n\nSubject: IFC\n${tail}`)
  expect((await renderTemplate(definition, { ...vars, responseDue: '2026-12-09', message: 'Hi' })).text).toBe(
    `Sam sent you transmittal TR-1, for construction.\n\nSubject: IFC\nResponse due: 2026-12-09\n\nHi\n${tail}`,
  )
})

test('a join request decision picks the approved or the declined text', async () => {
  const definition = requireDefinition('join-request-decided')
  const approved = await renderTemplate(definition, { ...common, approved: true, roleName: 'Member', reason: null, loginUrl: 'L', requestsUrl: 'R' })
  expect(approved.subject).toBe('You have joined Northwind')
  expect(approved.text).toBe('Your request to join Northwind on Site Portal was approved. Your role: Member.\n\nSign in and switch to Northwind:\nL\n')
  const declined = await renderTemplate(definition, { ...common, approved: false, roleName: null, reason: 'No', loginUrl: 'L', requestsUrl: 'R' })
  expect(declined.subject).toBe('Your request to join Northwind was declined')
  expect(declined.text).toBe('Your request to join Northwind on Site Portal was declined.\n\nThe reason given:\nNo\n\nYour requests: R\n')
})

describe('validation', () => {
  const definition = requireDefinition('invite')
  const ok = { subject: definition.subject, html: definition.html, text: definition.text }

  test('an unknown variable is an error naming it, the field and the known ones, never a blank', () => {
    const errors = validateTemplate(definition, { ...ok, html: '<p>Hello {{foo}}</p>' })
    expect(errors.html?.[0]).toMatch(/^Unknown variable \{\{foo\}\} in the HTML body\. Known: siteName, organisationName, publicUrl, inviterName/)
    expect(errors.subject).toBeUndefined()
    expect(validateTemplate(definition, { ...ok, subject: '{{ nope }}' }).subject?.[0]).toContain('Unknown variable {{nope}} in the subject')
    expect(validateTemplate(definition, { ...ok, text: '{{#nope}}x{{/nope}}' }).text?.[0]).toContain('Unknown variable {{nope}} in the text body')
  })

  test('an unclosed section, a stray closing tag and an unclosed tag are errors', () => {
    expect(validateTemplate(definition, { ...ok, text: '{{#message}}hi' }).text).toEqual(['The section {{#message}} in the text body is not closed: add {{/message}}.'])
    expect(validateTemplate(definition, { ...ok, text: 'hi{{/message}}' }).text?.[0]).toContain('closes a section that was never opened')
    expect(validateTemplate(definition, { ...ok, subject: 'Hello {{siteName' }).subject?.[0]).toContain('is not closed')
  })

  test('unescaped values are refused in the HTML body; partials are refused everywhere', () => {
    expect(validateTemplate(definition, { ...ok, html: '{{{message}}}' }).html?.[0]).toContain('Unescaped values')
    expect(validateTemplate(definition, { ...ok, text: '{{{message}}}' }).text).toBeUndefined()
    expect(validateTemplate(definition, { ...ok, text: '{{> other}}' }).text?.[0]).toContain('Partials')
  })

  test('a list is used as a section, and its fields only inside it', () => {
    const digest = requireDefinition('digest')
    const texts = { subject: digest.subject, html: digest.html, text: digest.text }
    expect(validateTemplate(digest, { ...texts, text: '{{#items}}{{title}} {{url}} {{siteName}}{{/items}}' })).toEqual({})
    expect(validateTemplate(digest, { ...texts, text: '{{items}}' }).text?.[0]).toContain('is a list')
    expect(validateTemplate(digest, { ...texts, text: '{{title}}' }).text?.[0]).toContain('Unknown variable {{title}}')
  })
})

test('the digest renders one entry per item', async () => {
  const definition = requireDefinition('digest')
  const mail = await renderTemplate(definition, sampleVariables(definition))
  expect(mail.text).toContain('- Cracked kerb at gate 3 (Harbour Bridge refurbishment), due 2026-11-20: Overdue\n  https://portal.example.com/items/sample-1\n')
  expect(mail.text).toContain('- Missing handrail, stair B')
  expect(mail.html.match(/<li>/g)?.length).toBe(2)
})

test('the HTML an admin writes keeps simple formatting and loses scripts, handlers and unsafe links', () => {
  expect(sanitizeHtml('<p onclick="x()">Hi <strong>there</strong><br/><a href="https://a.test/x" onmouseover="y">link</a></p>')).toBe(
    '<p>Hi <strong>there</strong><br><a href="https://a.test/x">link</a></p>',
  )
  expect(sanitizeHtml('<script>alert(1)</script><style>p{}</style><p>ok</p>')).toBe('<p>ok</p>')
  expect(sanitizeHtml('<a href="javascript:alert(1)">x</a><a href=" jav&#x61;script:alert(1)">y</a><a href="mailto:a@b.test">z</a>')).toBe(
    '<a>x</a><a>y</a><a href="mailto:a@b.test">z</a>',
  )
  expect(sanitizeHtml('<img src=x onerror=alert(1)><iframe src="https://e.test"></iframe>1 < 2')).toBe('1 &lt; 2')
  expect(sanitizeHtml('<ul><li>a</li></ul><!-- note -->')).toBe('<ul><li>a</li></ul>')
})
