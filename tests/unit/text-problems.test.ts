import { expect, test } from 'vitest'
import { BROKEN_CHARACTER_MESSAGE, CONTROL_CHARACTER_MESSAGE, textProblems } from '~/lib/schemas/text'

test('every string and key that breaks the text rule, by dotted path, in document order', () => {
  const value = { title: 'ok', 'bad\u0000key': 'fine', list: ['a', 'b\u0001', { deep: '\ud800' }], last: '\u0007' }
  expect(textProblems(value)).toEqual([
    ['bad\u0000key', CONTROL_CHARACTER_MESSAGE],
    ['list.1', CONTROL_CHARACTER_MESSAGE],
    ['list.2.deep', BROKEN_CHARACTER_MESSAGE],
    ['last', CONTROL_CHARACTER_MESSAGE],
  ])
  expect(textProblems('\u0000')).toEqual([['_', CONTROL_CHARACTER_MESSAGE]])
  expect(textProblems(null)).toEqual([])
})

test('a value nested 100,000 levels deep (a body within the size limit can be) is walked without overflowing the stack', () => {
  const json = `${'['.repeat(100_000)}"\\u0000"${']'.repeat(100_000)}`
  const problems = textProblems(JSON.parse(json))
  expect(problems).toHaveLength(1)
  expect(problems[0]?.[0].split('.')).toHaveLength(100_000)
})
