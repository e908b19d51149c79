import { expect, test } from 'vitest'
import { deriveRole, roleKeyLabel } from '~/lib/auth/role'

test('a role name containing admin, administrator or owner makes an admin, in any case', () => {
  for (const role of ['Admin', 'TenantAdmin', 'ADMINISTRATOR', 'owner', 'Project Owner', 'sysadmin']) {
    expect(deriveRole({ roles: ['User', role], kind: 'user' }), role).toBe('admin')
  }
})

test('otherwise the role is the session kind', () => {
  expect(deriveRole({ roles: ['User'], kind: 'admin' })).toBe('admin')
  expect(deriveRole({ roles: ['User', 'Editor'], kind: 'user' })).toBe('user')
  expect(deriveRole({ roles: [], kind: 'user' })).toBe('user')
})

test('otherwise user', () => {
  expect(deriveRole({ roles: ['Viewer'] })).toBe('user')
  expect(deriveRole({})).toBe('user')
  expect(deriveRole(null)).toBe('user')
  expect(deriveRole(undefined)).toBe('user')
})

test('role keys show as their labels', () => {
  expect(roleKeyLabel('admin')).toBe('Administrator')
  expect(roleKeyLabel('read-write')).toBe('Read & Write')
  expect(roleKeyLabel('read-only')).toBe('Read Only')
  expect(roleKeyLabel('auditor')).toBe('auditor')
  expect(roleKeyLabel('toString')).toBe('toString')
})
