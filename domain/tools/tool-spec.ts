// What a session's tool is, wherever it comes from (the gateway's own operations, a catalog provider's
// tool, a tenant's published tool server): its name, schema, whether it moves money, and how it is made.
import type { CatalogServer, CatalogTool } from '../providers/catalog';
import type { ServerToolRow, ToolServer } from '../tool-servers/servers';
import type { CardOperation } from './card-tools';
import type { GatewayOperation } from './gateway-tools';

export type ToolDispatch =
  | { kind: 'gateway'; operation: GatewayOperation }
  /** An agent-card operation of the built-in server `cards`, made by the card routes' own functions. */
  | { kind: 'cards'; operation: CardOperation }
  | { kind: 'provider'; server: CatalogServer; tool: CatalogTool }
  /** A tenant's published tool server (`<slug>.<tool>`), called upstream over MCP. */
  | { kind: 'tenant'; server: ToolServer; tool: ServerToolRow };

export interface ToolSpec {
  name: string;
  serverId: string;
  description: string;
  /** Moves money (what listings show). */
  movesMoney: boolean;
  /** Runs as an attempt of the attempt engine; otherwise the call is gated by policy and made directly. */
  attempt: boolean;
  inputSchema: Record<string, unknown>;
  dispatch: ToolDispatch;
}
