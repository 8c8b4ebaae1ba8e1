// Every HTTP route of the gateway, in one list: the router, scope checks and OpenAPI document read it.
import type { AnyRoute } from '../route';
import { identityRoutes } from './identity';
import { oauthMetadataRoutes } from './oauth-metadata';
import { oauthRoutes } from './oauth';
import { operatorRoutes } from './operator';
import { projectRoutes } from './projects';
import { publicRoutes } from './public';
import { consentPageRoutes } from './consent-page';
import { consentRoutes } from './consents';
import { consumerRoutes } from './consumers';
import { contactVerificationRoutes } from './contact-verifications';
import { mandateRoutes } from './mandates';
import { codehostRoutes } from './codehost';
import { eventRoutes } from './events';
import { webhookEndpointRoutes } from './webhook-endpoints';
import { receiptRoutes } from './receipts';
import { consumerPaymentRoutes } from './consumer-payments';
import { ledgerRoutes } from './ledger';
import { walletRoutes } from './wallets';
import { walletTopupRoutes } from './wallet-topups';
import { policyRoutes } from './policies';
import { executeRoutes } from './execute';
import { approvalRoutes } from './approvals';
import { reconciliationRoutes } from './reconciliation';
import { providerRoutes } from './providers';
import { connectionRoutes } from './connections';
import { provisioningRoutes } from './provisioning';
import { oauthConnectionRoutes } from './oauth-connections';
import { consoleRoutes } from './console';
import { sessionRoutes } from './sessions';
import { toolCallRoutes } from './tool-calls';
import { mcpRoutes } from './mcp';
import { discoveryRoutes } from './discovery';
import { proxyExecuteRoutes } from './proxy-execute';
import { paymentLinkRoutes } from './payment-links';
import { payRoutes } from './pay';
import { issuerRoutes } from './issuer';
import { cardRoutes } from './cards';
import { generateRoutes } from './generate';
import { verificationStreamRoutes } from '../sse/verification-stream';
import { cartRoutes } from './cart';
import { kycRoutes } from './kyc';
import { ddaRoutes } from './dda';
import { tedInboundRoutes } from './ted-inbound';
import { payX402Routes } from './pay-x402';
import { mcpServerRoutes } from './mcp-servers';
import { consoleToolChargeRoutes } from './console-tool-charges';

export function allRoutes(): AnyRoute[] {
  const routes: AnyRoute[] = [
    ...publicRoutes(() => routes),
    ...identityRoutes,
    ...projectRoutes,
    ...operatorRoutes,
    ...consumerRoutes,
    ...contactVerificationRoutes,
    ...consentRoutes,
    ...mandateRoutes,
    ...consentPageRoutes,
    ...receiptRoutes,
    ...consumerPaymentRoutes,
    ...walletRoutes,
    ...walletTopupRoutes,
    ...ledgerRoutes,
    ...policyRoutes,
    ...executeRoutes,
    ...approvalRoutes,
    ...reconciliationRoutes,
    ...oauthMetadataRoutes,
    ...oauthRoutes,
    ...webhookEndpointRoutes,
    ...eventRoutes,
    ...codehostRoutes,
    ...providerRoutes,
    ...connectionRoutes,
    ...provisioningRoutes,
    ...oauthConnectionRoutes,
    ...consoleRoutes,
    ...sessionRoutes,
    ...toolCallRoutes,
    ...mcpRoutes,
    ...discoveryRoutes,
    ...proxyExecuteRoutes,
    ...paymentLinkRoutes,
    ...payRoutes,
    ...issuerRoutes,
    ...cardRoutes,
    ...generateRoutes,
    ...verificationStreamRoutes,
    ...cartRoutes,
    ...kycRoutes,
    ...ddaRoutes,
    ...tedInboundRoutes,
    ...payX402Routes,
    ...mcpServerRoutes,
    ...consoleToolChargeRoutes,
  ];
  return routes;
}
