// The deprecated KYC onboarding status poll through HTTP against the mock KYC provider (a real HTTP
// server): the document claim checked before any provider call, the states, the approval's account,
// funding source and lazily registered Pix key, polls after approval creating nothing, tenant control,
// and the two 502s told apart.
import { sql } from 'slonik';
import { z } from 'zod';
import { recordProposal } from '../domain/kyc/proposals';
import type { KycMock } from '../providers/mocks/kyc';
import { createConsumer } from './support/consents';
import { startGateway, type Gateway, type Tenant } from './support/harness';

const CPF = '52998224725';
const OTHER_CPF = '11144477735';
let gw: Gateway;
let acme: Tenant;
let globex: Tenant;
let kyc: KycMock;

beforeAll(async () => {
  gw = await startGateway({ worker: false });
  acme = await gw.createTenant({ name: 'Acme' });
  globex = await gw.createTenant({ name: 'Globex' });
  kyc = gw.mocks.kyc as KycMock;
});
afterAll(async () => gw?.stop());

let serial = 0;
/** A proposal opened at the provider for `document` and recorded by the gateway with `recorded`. */
async function proposal(
  options: { consumer?: boolean; document?: string; recorded?: string; tenant?: Tenant } = {},
) {
  const tenant = options.tenant ?? acme;
  const consumerId = options.consumer === false ? null : (await createConsumer(gw, tenant.key)).id;
  const proposalId = `prop-${++serial}-${Date.now()}`;
  kyc.propose(proposalId, options.document ?? CPF);
  await recordProposal(
    gw.db,
    { ...tenant, environment: 'test' },
    {
      proposalId,
      documentNumber: options.recorded ?? options.document ?? CPF,
      consumerId,
    },
  );
  return { proposalId, consumerId };
}
const poll = (proposalId: string, query: string, key = acme.key) =>
  gw.request('GET', `/v1/kyc/onboard/${proposalId}/status${query}`, { key });
const fundingSources = (consumerId: string) =>
  gw.db.any(sql.type(z.object({ id: z.string(), rail: z.string(), holder_document: z.string().nullable() }))`
    SELECT id, rail, holder_document FROM consumer_funding_sources WHERE consumer_id = ${consumerId}`);

describe('GET /v1/kyc/onboard/{proposalId}/status', () => {
  it('answers a bare 400, asking no provider, when document_number is absent', async () => {
    const { proposalId } = await proposal();
    const before = kyc.calls('proposal');
    const res = await poll(proposalId, '');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.text).toContain('document_number');
    expect(res.headers.get('deprecation')).toMatch(/^@[0-9]+$/);
    expect(kyc.calls('proposal')).toBe(before);
  });

  it('walks pending, documentscopy_pending and an unreadable approval to approved, with the deprecation headers', async () => {
    const { proposalId, consumerId } = await proposal();
    const pending = await poll(proposalId, `?document_number=${CPF}`);
    expect(pending.status).toBe(200);
    expect(pending.body).toEqual({
      status: 'pending',
      account: null,
      funding_source_id: null,
      hosted_url: null,
      pix_key: null,
      pix_key_type: null,
    });
    expect(pending.headers.get('deprecation')).toMatch(/^@[0-9]+$/);
    expect(pending.headers.get('link')).toContain('rel="deprecation"');

    kyc.setStatus(proposalId, 'PENDING_DOCUMENTSCOPY');
    const docs = await poll(proposalId, `?document_number=${CPF}`);
    expect(docs.body).toMatchObject({
      status: 'documentscopy_pending',
      hosted_url: expect.stringContaining('documentscopy'),
    });
    kyc.setStatus(proposalId, 'PROCESSING');
    expect((await poll(proposalId, `?document_number=${CPF}`)).body).toMatchObject({
      status: 'pending',
      hosted_url: null,
    });
    kyc.setStatus(proposalId, null);
    expect((await poll(proposalId, `?document_number=${CPF}`)).body.status).toBe('pending');
    // Approved at the provider, but the account cannot be read yet: still pending.
    kyc.setStatus(proposalId, 'APPROVED');
    expect((await poll(proposalId, `?document_number=${CPF}`)).body.status).toBe('pending');

    const account = kyc.openAccount(CPF);
    const approved = await poll(proposalId, '?document_number=529.982.247-25');
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({
      status: 'approved',
      account: `${account.branch}/${account.number}`,
      funding_source_id: expect.stringMatching(/^cfs_/),
      hosted_url: null,
      pix_key: expect.any(String),
      pix_key_type: 'EVP',
    });
    expect(await fundingSources(consumerId!)).toEqual([
      { id: approved.body.funding_source_id, rail: 'pix-partner', holder_document: CPF },
    ]);
  });

  it('creates nothing new and asks no provider on repeated polls after approval', async () => {
    const { proposalId, consumerId } = await proposal({ document: OTHER_CPF });
    kyc.setStatus(proposalId, 'APPROVED');
    kyc.openAccount(OTHER_CPF);
    const first = await poll(proposalId, `?document_number=${OTHER_CPF}`);
    expect(first.body.status).toBe('approved');
    const calls = ['proposal', 'account', 'pix'].map((e) => kyc.calls(e as 'proposal'));
    const keys = kyc.pixKeys().length;
    const again = await Promise.all([1, 2, 3].map(() => poll(proposalId, `?document_number=${OTHER_CPF}`)));
    for (const res of again) expect(res.body).toEqual(first.body);
    expect(await fundingSources(consumerId!)).toHaveLength(1);
    expect(kyc.pixKeys()).toHaveLength(keys);
    expect(['proposal', 'account', 'pix'].map((e) => kyc.calls(e as 'proposal'))).toEqual(calls);
  });

  it("refuses a document_number that is not the proposal's before any provider call", async () => {
    const { proposalId } = await proposal();
    const before = kyc.calls('proposal');
    const res = await poll(proposalId, `?document_number=${OTHER_CPF}`);
    expect([res.status, res.body.error.code]).toEqual([403, 'document_mismatch']);
    const noDigits = await poll(proposalId, '?document_number=abc');
    expect(noDigits.status).toBe(400);
    expect(kyc.calls('proposal')).toBe(before);
  });

  it("refuses another organization's or project's key with 403 and an unknown proposal with 404", async () => {
    const { proposalId } = await proposal();
    const before = kyc.calls('proposal');
    const foreign = await poll(proposalId, `?document_number=${CPF}`, globex.key);
    expect([foreign.status, foreign.body.error.code]).toEqual([403, 'proposal_forbidden']);
    expect(foreign.headers.get('deprecation')).toMatch(/^@[0-9]+$/);
    const project = await gw.operator('POST', '/v1/projects', {
      project: acme.projectId,
      body: { name: 'KYC second', slug: 'kyc-second' },
    });
    const sibling = await gw.createKey(project.body.id);
    const sameOrg = await poll(proposalId, `?document_number=${CPF}`, sibling.key);
    expect([sameOrg.status, sameOrg.body.error.code]).toEqual([403, 'proposal_forbidden']);
    expect(kyc.calls('proposal')).toBe(before);
    const unknown = await poll('prop-unknown', `?document_number=${CPF}`);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
  });

  it('answers 502 for a provider failure and for a refused ownership proof, telling them apart', async () => {
    const { proposalId } = await proposal();
    kyc.failNext('proposal');
    const failed = await poll(proposalId, `?document_number=${CPF}`);
    expect([failed.status, failed.body.error.code, failed.body.error.details]).toEqual([
      502,
      'provider_error',
      { reason: 'provider_failure' },
    ]);
    // The provider holds this proposal under another document than the one the gateway verified.
    const mismatched = await proposal({ document: OTHER_CPF, recorded: CPF });
    const refused = await poll(mismatched.proposalId, `?document_number=${CPF}`);
    expect(refused.headers.get('deprecation')).toMatch(/^@[0-9]+$/);
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
      502,
      'provider_error',
      { reason: 'ownership_refused' },
    ]);
    expect(refused.body.error.message).not.toBe(failed.body.error.message);
    expect(refused.body.error.message).toMatch(/ownership|owns/);
    // Nothing moved: the first proposal still answers pending once the provider is back.
    expect((await poll(proposalId, `?document_number=${CPF}`)).body.status).toBe('pending');
  });

  it('answers 502 provider_failure when no KYC provider is configured', async () => {
    const { proposalId } = await proposal();
    const url = gw.config.providerUrls.kyc;
    delete gw.config.providerUrls.kyc;
    try {
      const res = await poll(proposalId, `?document_number=${CPF}`);
      expect([res.status, res.body.error.code, res.body.error.details]).toEqual([
        502,
        'provider_error',
        { reason: 'provider_failure' },
      ]);
    } finally {
      gw.config.providerUrls.kyc = url;
    }
  });

  it('answers an approval whose Pix key failed with pix_key_registration_error, and registers the key on the next poll', async () => {
    const document = '39053344705';
    const { proposalId, consumerId } = await proposal({ document });
    kyc.setStatus(proposalId, 'APPROVED');
    kyc.openAccount(document);
    kyc.failNext('pix');
    const first = await poll(proposalId, `?document_number=${document}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      status: 'approved',
      account: expect.any(String),
      funding_source_id: expect.any(String),
      pix_key: null,
      pix_key_type: null,
      pix_key_registration_error: expect.any(String),
    });
    const second = await poll(proposalId, `?document_number=${document}`);
    expect(second.body).toMatchObject({ pix_key: expect.any(String), pix_key_type: 'EVP' });
    expect(second.body).not.toHaveProperty('pix_key_registration_error');
    expect(second.body.funding_source_id).toBe(first.body.funding_source_id);
    expect(await fundingSources(consumerId!)).toHaveLength(1);
  });

  it('uses consumer_id only when the proposal recorded no consumer', async () => {
    const document = '71428793860';
    const { proposalId } = await proposal({ document, consumer: false });
    kyc.setStatus(proposalId, 'APPROVED');
    kyc.openAccount(document);
    const ghost = await poll(proposalId, `?document_number=${document}&consumer_id=cns_nothing`);
    expect([ghost.status, ghost.body.error.code]).toEqual([404, 'not_found']);
    const first = (await createConsumer(gw, acme.key)).id;
    const second = (await createConsumer(gw, acme.key)).id;
    const approved = await poll(proposalId, `?document_number=${document}&consumer_id=${first}`);
    expect(approved.body.funding_source_id).toEqual(expect.any(String));
    expect((await fundingSources(first)).map((s) => s.id)).toEqual([approved.body.funding_source_id]);
    // The proposal now records its consumer: another consumer_id changes nothing.
    const later = await poll(proposalId, `?document_number=${document}&consumer_id=${second}`);
    expect(later.body.funding_source_id).toBe(approved.body.funding_source_id);
    expect(await fundingSources(second)).toEqual([]);

    const recorded = await proposal({ document: '86288366757' });
    kyc.setStatus(recorded.proposalId, 'APPROVED');
    kyc.openAccount('86288366757');
    await poll(recorded.proposalId, `?document_number=86288366757&consumer_id=${second}`);
    expect(await fundingSources(recorded.consumerId!)).toHaveLength(1);
    expect(await fundingSources(second)).toEqual([]);
  });

  it('answers an approval without any consumer with a null funding_source_id', async () => {
    const document = '15350946056';
    const { proposalId } = await proposal({ document, consumer: false });
    kyc.setStatus(proposalId, 'APPROVED');
    kyc.openAccount(document);
    const res = await poll(proposalId, `?document_number=${document}`);
    expect(res.body).toMatchObject({
      status: 'approved',
      funding_source_id: null,
      pix_key: expect.any(String),
    });
  });

  it('answers rejected and stops asking the provider', async () => {
    const { proposalId } = await proposal();
    kyc.setStatus(proposalId, 'REJECTED');
    const res = await poll(proposalId, `?document_number=${CPF}`);
    expect(res.body).toEqual({
      status: 'rejected',
      account: null,
      funding_source_id: null,
      hosted_url: null,
      pix_key: null,
      pix_key_type: null,
    });
    const before = kyc.calls('proposal');
    kyc.setStatus(proposalId, 'APPROVED');
    expect((await poll(proposalId, `?document_number=${CPF}`)).body.status).toBe('rejected');
    expect(kyc.calls('proposal')).toBe(before);
  });
});
