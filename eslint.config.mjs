// Guard rails the compiler cannot give: promises that are neither awaited nor handled, and the layer
// rules of the design (workflows stay deterministic; domain knows nothing of HTTP or the Temporal client).
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'node:*',
  'fs',
  'path',
  'os',
  'crypto',
  'http',
  'https',
  'net',
  'child_process',
  'timers',
  'process',
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.data/**',
      'cli/generated/**',
      '.venv-fuzz/**',
      '.kms-venv/**',
      '.cluster/**',
      'coverage/**',
    ],
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        projectService: { allowDefaultProject: ['cli/build/write-openapi.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false, attributes: false } },
      ],
    },
  },
  {
    // Production code names its types; tests and benchmarks read response bodies loosely.
    files: ['**/*.ts'],
    ignores: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'no-control-regex': 'error',
    },
  },
  {
    // Workflow code is replayed: no I/O, no clocks or randomness of its own, activities by type only.
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins
              .filter((name) => !name.includes('*'))
              .map((name) => ({ name, message: 'Workflows are deterministic: no Node built-ins.' })),
            {
              name: '@temporalio/client',
              message: 'Workflows talk to Temporal through @temporalio/workflow.',
            },
            { name: 'slonik', message: 'Workflows reach the database only through activities.' },
            { name: 'pg', message: 'Workflows reach the database only through activities.' },
          ],
          patterns: [
            { group: ['node:*'], message: 'Workflows are deterministic: no Node built-ins.' },
            {
              group: ['**/providers/**', '**/runtime/database*', '**/api/**'],
              message: 'Workflows call providers and the database only through activities.',
              allowTypeImports: true,
            },
            {
              group: ['**/activities/**'],
              message: 'Workflows import activities as types (proxyActivities).',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    // The domain is below the API and below orchestration.
    files: ['domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@temporalio/client',
              message: 'Domain code does not start or signal workflows; the API and activities do.',
              allowTypeImports: false,
            },
          ],
          patterns: [
            {
              group: ['**/api/**', '../api/*', '../../api/*'],
              message: 'Domain code never imports the API layer.',
            },
          ],
        },
      ],
    },
  },
);
