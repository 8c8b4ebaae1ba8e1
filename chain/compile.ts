// Compiles the local chain's token with solc-js from npm (offline: no compiler download), caching the
// ABI and bytecode by the source's hash in chain/.build/ so later starts skip the few seconds solc takes.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Abi, Hex } from 'viem';

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

const CONTRACTS = path.join(__dirname, 'contracts');
const BUILD = path.join(__dirname, '.build');

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

export function compileContract(file: string, contract: string): CompiledContract {
  const source = readFileSync(path.join(CONTRACTS, file), 'utf8');
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const cached = path.join(BUILD, `${contract}.${hash}.json`);
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8')) as CompiledContract;
  // Loaded only on a cache miss: solc-js is a large emscripten module.
  const solc = require('solc') as { compile(input: string): string };
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { [file]: { content: source } },
        settings: {
          optimizer: { enabled: true, runs: 200 },
          evmVersion: 'cancun',
          outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
        },
      }),
    ),
  ) as SolcOutput;
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length) throw new Error(errors.map((error) => error.formattedMessage).join('\n'));
  const built = output.contracts[file][contract];
  const compiled: CompiledContract = { abi: built.abi, bytecode: `0x${built.evm.bytecode.object}` };
  mkdirSync(BUILD, { recursive: true });
  writeFileSync(cached, JSON.stringify(compiled));
  return compiled;
}
