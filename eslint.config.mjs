// Guard rails the compiler cannot give: promises that are neither awaited nor handled, and the layer
// rules of the design (each top-level folder imports only the folders below it; workflows stay
// deterministic; domain knows nothing of HTTP or the Temporal client).
import tseslint from 'typescript-eslint';

// The layers, lowest first. A folder may import the folders named for it, and nothing else of the project:
//   contracts, chain (leaves: workflow ids, messages and inputs, the schema vocabulary; the local EVM chain)
//   → runtime (config, database, logger, telemetry) → schema (JSON Schemas) → domain (rules and SQL)
//   → providers (adapters and mock servers) → activities → workflows → orchestration (starts, updates and
//   signals workflows) → temporal-dev → api → worker → local (the dev stack, the admin command) → cluster
//   → bench; cli and test stand beside the top.
// `types` are folders a layer may import as types only (workflows proxy their activities by type).
const ORDER = [
  'contracts',
  'chain',
  'runtime',
  'schema',
  'domain',
  'providers',
  'activities',
  'workflows',
  'orchestration',
  'temporal-dev',
  'api',
  'worker',
  'local',
  'cluster',
  'bench',
];
const below = (folder) => ORDER.slice(0, ORDER.indexOf(folder));
const LAYERS = {
  contracts: { may: [] },
  chain: { may: [] },
  runtime: { may: ['contracts'] },
  schema: { may: ['contracts'] },
  domain: { may: ['contracts', 'runtime', 'schema'] },
  providers: { may: ['contracts', 'chain', 'runtime', 'schema', 'domain'] },
  activities: { may: ['contracts', 'runtime', 'schema', 'domain', 'providers'] },
  workflows: { may: ['contracts', 'domain'], types: ['activities'] },
  orchestration: { may: ['contracts', 'runtime', 'domain'], types: ['workflows'] },
  'temporal-dev': { may: ['contracts', 'runtime'] },
  api: { may: ['contracts', 'runtime', 'schema', 'domain', 'orchestration'] },
  worker: {
    may: [
      'contracts',
      'runtime',
      'schema',
      'domain',
      'providers',
      'activities',
      'workflows',
      'orchestration',
    ],
  },
  local: { may: below('local') },
  cluster: { may: below('cluster') },
  bench: { may: [...below('bench'), 'test'] },
  cli: { may: ['contracts', 'schema', 'api'] },
  test: { may: [...below('bench'), 'cli'] },
};
const FOLDERS = Object.keys(LAYERS);

// API files that still call a provider while the HTTP caller waits (tool calls, the proxy, connection
// checks, OAuth code exchange, KYC, the browser worker, the classifier, x402 settlement, DDA boletos,
// inbound TED and Pix lookups, MCP handshakes, deposit addresses, the OTP sender check), or map a provider's
// failure to its answer (providers/provider-failure.ts). No other API file may import providers/.
const API_PROVIDER_CALLS = [
  'api/flows/cards.ts',
  'api/flows/contact-verification.ts',
  'api/flows/dda-boletos.ts',
  'api/flows/generated-server.ts',
  'api/flows/provider-money-call.ts',
  'api/flows/tool-call.ts',
  'api/flows/tool-server-registration.ts',
  'api/flows/wallet-topups.ts',
  'api/routes/cart.ts',
  'api/routes/consumer-payments.ts',
  'api/routes/discovery.ts',
  'api/routes/kyc.ts',
  'api/routes/oauth-connections.ts',
  'api/routes/pay-x402.ts',
  'api/routes/payment-links.ts',
  'api/routes/proxy-execute.ts',
  'api/routes/ted-inbound.ts',
  'api/routes/verify-connection.ts',
];

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

// Restrictions a folder keeps beside its layer rule (one no-restricted-imports option per file, so both go
// in the same block).
const workflowBuiltins = nodeBuiltins
  .filter((name) => !name.includes('*'))
  .map((name) => ({ name, message: 'Workflows are deterministic: no Node built-ins.' }));
const EXTRA = {
  workflows: {
    paths: [
      ...workflowBuiltins,
      { name: '@temporalio/client', message: 'Workflows talk to Temporal through @temporalio/workflow.' },
      { name: 'slonik', message: 'Workflows reach the database only through activities.' },
      { name: 'pg', message: 'Workflows reach the database only through activities.' },
    ],
    patterns: [{ group: ['node:*'], message: 'Workflows are deterministic: no Node built-ins.' }],
  },
  domain: {
    paths: [
      {
        name: '@temporalio/client',
        message: 'Domain code does not start or signal workflows; orchestration does.',
        allowTypeImports: false,
      },
    ],
    patterns: [],
  },
};

/** The import patterns that keep a file `depth` folders deep in `folder` on its layer. */
function layerPatterns(folder, depth, extraMay = []) {
  const layer = LAYERS[folder];
  const may = [...layer.may, ...extraMay];
  const types = layer.types ?? [];
  const denied = FOLDERS.filter((name) => name !== folder && !may.includes(name) && !types.includes(name));
  // Exactly `depth` steps up reach the project's root; fewer stay inside the folder (domain/providers is not providers/).
  const fromRoot = (names) => `^${'\\.\\./'.repeat(depth)}(${names.join('|')})(/|$)`;
  const allowed =
    [...may, ...types.map((name) => `${name} (types only)`)].join(', ') || 'nothing of the project';
  const patterns = [];
  if (denied.length > 0)
    patterns.push({
      regex: fromRoot(denied),
      message: `Layers point down: ${folder}/ may import ${allowed}.`,
    });
  if (types.length > 0)
    patterns.push({
      regex: fromRoot(types),
      allowTypeImports: true,
      message: `Layers point down: ${folder}/ imports ${types.join(', ')} as types only.`,
    });
  return patterns;
}

function restriction(folder, depth, extraMay) {
  const extra = EXTRA[folder] ?? { paths: [], patterns: [] };
  return {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      { paths: extra.paths, patterns: [...extra.patterns, ...layerPatterns(folder, depth, extraMay)] },
    ],
  };
}

/** One block per folder and depth (the depth says how many `../` reach the root), then the API's exceptions. */
function layerBlocks() {
  const blocks = [];
  for (const folder of FOLDERS)
    for (let depth = 1; depth <= 8; depth++)
      blocks.push({
        files: [`${folder}/${'*/'.repeat(depth - 1)}*.ts`],
        rules: restriction(folder, depth),
      });
  for (const file of API_PROVIDER_CALLS)
    blocks.push({ files: [file], rules: restriction('api', file.split('/').length - 1, ['providers']) });
  return blocks;
}

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
  ...layerBlocks(),
);
