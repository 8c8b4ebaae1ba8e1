// Picks the configured key service once per settings object (GATEWAY_VAULT_KEY_SERVICE), so the API and
// the worker share one client per process and a test can swap the settings for a gateway it runs.
import type { VaultSettings } from '../../runtime/config';
import type { KeyService } from './key-service';
import { KmsKeyService } from './kms-key-service';
import { LocalKeyService } from './local-key-service';
import { RoutingKeyService } from './routing-key-service';

const services = new WeakMap<VaultSettings, KeyService>();

export function keyServiceFor(settings: VaultSettings): KeyService {
  let service = services.get(settings);
  if (!service) {
    if (settings.keyService === 'local') service = new LocalKeyService(settings.localKeys);
    else if (settings.localKeys)
      service = new RoutingKeyService(new KmsKeyService(settings.kms), [
        new LocalKeyService(settings.localKeys),
      ]);
    else service = new KmsKeyService(settings.kms);
    services.set(settings, service);
  }
  return service;
}
