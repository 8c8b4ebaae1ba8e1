// Every HTTP route of the gateway, in one list: the router, scope checks and OpenAPI document read it.
import type { AnyRoute } from '../route';
import { identityRoutes } from './identity';
import { oauthMetadataRoutes } from './oauth-metadata';
import { oauthRoutes } from './oauth';
import { operatorRoutes } from './operator';
import { projectRoutes } from './projects';
import { publicRoutes } from './public';
import { ledgerRoutes } from './ledger';
import { walletRoutes } from './wallets';
import { policyRoutes } from './policies';
import { executeRoutes } from './execute';
import { approvalRoutes } from './approvals';
import { reconciliationRoutes } from './reconciliation';

export function allRoutes(): AnyRoute[] {
  const routes: AnyRoute[] = [
    ...publicRoutes(() => routes),
    ...identityRoutes,
    ...projectRoutes,
    ...operatorRoutes,
    ...walletRoutes,
    ...ledgerRoutes,
    ...policyRoutes,
    ...executeRoutes,
    ...approvalRoutes,
    ...reconciliationRoutes,
    ...oauthMetadataRoutes,
    ...oauthRoutes,
  ];
  return routes;
}
