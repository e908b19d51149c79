import js from '@eslint/js'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['build/', 'node_modules/', '.react-router/', 'data/', 'server/db/migrations/', 'app/lib/api/contract.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['#server/*', '**/server/*'], message: 'The web app reaches the backend only through ~/lib/api.' }] },
      ],
    },
  },
  {
    files: ['tests/**', 'bench/**', 'scripts/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // The server takes only the shared contract from the app (docs/architecture.md "The shared
    // contract"): app/lib's schemas, types, constants and pure rules, never the screens' API client,
    // page-request (*.server) modules or components. dependency-cruiser checks the same, transitively.
    files: ['server/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['~/*', '!~/lib', '~/lib/api', '~/lib/api/*', '~/lib/api.server', '~/**/*.server', '~/**/*.tsx'],
              message: 'The server imports only the shared contract from the app: app/lib (schemas, types, constants), not its API client, page-request modules or screens.',
            },
          ],
        },
      ],
    },
  },
  { files: ['**/*.{js,mjs}'], languageOptions: { globals: globals.node } },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: globals.node }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
)
