// The CLI's outcomes and their exit codes, so scripts can branch on them: 0 success, 1 the API
// answered with an error, 2 the command line was wrong (nothing was sent), 3 the gateway was unreachable.
export const EXIT = { ok: 0, api: 1, usage: 2, network: 3 } as const;

export class CliError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(EXIT.usage, message);
export const networkError = (message: string) => new CliError(EXIT.network, message);
