// The ports the gateway's own tools are given (domain/tools/gateway-operations.ts), from the settings:
// the x402 wallet provider of the caller's environment, and the public origin links are shown under — GATEWAY_PUBLIC_URL, else this
// process's own address, since a tool call (or its approval replay) has no request host to go by.
import type { GatewayPorts } from '../../domain/tools/gateway-operations';
import type { Environment } from '../../domain/tenancy/api-key-format';
import type { Config } from '../../runtime/config';
import { providerEndpoint } from '../../domain/providers/endpoints';
import { walletProvisioner } from '../x402/wallets';

export function gatewayPorts(config: Config, environment: Environment): GatewayPorts {
  return {
    provisionWallet: walletProvisioner(
      providerEndpoint(config, 'x402_wallets', environment),
      config.providerTimeoutMs,
    ),
    origin: (config.publicBaseUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, ''),
  };
}
