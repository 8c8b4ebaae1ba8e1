// One DDA registration (`dda/<subscription id>`): the first registration call makes the workflow ask the
// provider to register the document; the workflow then waits, as long as it takes and without polling,
// for the provider's confirmation webhook (passed on as a signal) and records the provider's
// subscription id, or records the refusal. A delete ends the registration upstream, then locally; a
// failed upstream delete changes nothing and is reported to its caller. Postgres holds the state; every
// write names the state it leaves, so a run started for a row that has moved on changes nothing.
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  DDA_PROVIDER_UNAVAILABLE,
  ddaConfirmedSignal,
  ddaDeleteUpdate,
  ddaRegisterUpdate,
  type DdaRegisterAnswer,
  type DdaRegistrationInput,
  type DdaRegistrationOutcome,
  type DdaStatusView,
} from '../contracts/dda-messages';

// A caller waits on these: a few quick tries, then the caller hears the provider is unavailable.
const provider = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumAttempts: 3 },
});
// Recording what the provider already said must land: retried until the database answers.
const record = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function ddaRegistration(input: DdaRegistrationInput): Promise<DdaRegistrationOutcome> {
  let asks = 0;
  let answer: DdaRegisterAnswer | null = null;
  let confirmation: string | null = null;
  let busy = false;
  let deleted = false;

  setHandler(ddaRegisterUpdate, async (): Promise<DdaRegisterAnswer> => {
    const first = asks++ === 0;
    await condition(() => answer !== null);
    // Only the ask that set the registration going registered anything; the others joined it.
    if (first || answer!.outcome === 'unavailable') return answer!;
    return { ...answer!, outcome: 'replayed' };
  });
  setHandler(ddaConfirmedSignal, (confirmed) => {
    confirmation ??= confirmed.providerSubscriptionId;
  });
  setHandler(ddaDeleteUpdate, async () => {
    // Never beside a register or activate step: a delete that overtook its registration would leave it upstream.
    await condition(() => !busy);
    if (deleted) return { status: 'deleted' as const };
    busy = true;
    try {
      await provider.deleteDdaSubscriptionUpstream(input.subscriptionId);
    } catch {
      throw ApplicationFailure.nonRetryable(
        'The DDA provider could not end the registration; nothing changed',
        DDA_PROVIDER_UNAVAILABLE,
      );
    } finally {
      busy = false;
    }
    await record.markDdaSubscriptionDeleted(input.subscriptionId);
    deleted = true;
    return { status: 'deleted' as const };
  });

  // Every ask still waiting hears how the registration stands before the run closes.
  const finish = async (outcome: DdaRegistrationOutcome, status: DdaStatusView) => {
    answer ??= { outcome: 'replayed', status };
    await condition(allHandlersFinished);
    return outcome;
  };

  // A run may start for a delete alone (a registration that ended), or for a confirmation whose run was
  // gone (the provider registered the document though its answer never came back).
  await condition(() => (asks > 0 && !busy) || deleted || confirmation !== null);
  if (deleted) return finish('deleted', 'deleted');
  if (confirmation === null) {
    busy = true;
    let step;
    try {
      step = await provider.registerDdaSubscription(input);
    } catch {
      step = null;
    } finally {
      busy = false;
    }
    if (step === null) {
      answer = { outcome: 'unavailable', status: 'pending' };
      return finish('unregistered', 'pending');
    }
    if (step.step === 'refused') {
      const status = await record.markDdaSubscriptionError(input.subscriptionId, step.code);
      answer = { outcome: status === 'error' ? 'refused' : 'replayed', status };
      return finish('error', status);
    }
    if (step.step === 'settled') {
      answer = { outcome: 'replayed', status: step.status };
      // A registered row still pending waits for its confirmation here (its earlier run is gone).
      if (step.status !== 'pending' || !step.registered) return finish('settled', step.status);
    } else {
      answer = { outcome: 'registered', status: 'pending' };
    }
  }

  await condition(() => confirmation !== null || deleted);
  await condition(() => !busy);
  if (deleted) return finish('deleted', 'deleted');
  busy = true;
  let status: DdaStatusView;
  try {
    status = await record.activateDdaSubscription(input.subscriptionId, confirmation!);
  } finally {
    busy = false;
  }
  return finish('active', status);
}
