// What the MCP transport is handed and answers when it can do without the web-standard objects the SDK
// works on: the request as the HTTP server parsed it (its web form made only when the SDK is to see it),
// and an answer whose bytes are whole already, written out by the route as they are.
import type { IncomingHttpHeaders } from 'node:http';

export interface Incoming {
  method: string;
  /** The request's headers as Node parsed them (lower-cased names): what the web form is made from. */
  headers: IncomingHttpHeaders;
  /** The request in the web-standard form the SDK takes, made on first use. */
  request(): Request;
}

export interface WholeAnswer {
  status: number;
  /** Lower-cased names, in the order a web Response's headers iterate. */
  headers: Array<[string, string]>;
  body: string;
}

export type McpAnswer = Response | WholeAnswer;

/** The header lines of `incoming` that a shape key holds: `names`' and every `mcp-*` one but `except`. */
export function shapeHeaders(incoming: Incoming, names: string[], except?: string): string {
  let lines = '';
  for (const name in incoming.headers) {
    if (!(names.includes(name) || (name.startsWith('mcp-') && name !== except))) continue;
    const value = incoming.headers[name];
    lines += `${name}:${Array.isArray(value) ? value.join('\n ') : String(value)}\n`;
  }
  return lines;
}
