// Normalizes inbound code-host webhook payloads (`X-Codehost-Event`) into one CIEvent shape:
// `workflow_run`, `pull_request`, `push` and `check_run` are handled; anything else is ignored with a reason.

export const HANDLED_CODEHOST_EVENTS = ['workflow_run', 'pull_request', 'push', 'check_run'] as const;
export type CodehostEventName = (typeof HANDLED_CODEHOST_EVENTS)[number];

export interface CIEvent {
  type: CodehostEventName;
  repo: string; // owner/name
  branch: string | null;
  status: string;
  conclusion?: string;
  details: string;
}

export type Normalized =
  { processed: true; event: CIEvent; action?: string } | { processed: false; reason: string };

type Json = Record<string, unknown>;

const obj = (value: unknown): Json =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 ? value : undefined;

function repoOf(payload: Json): string | undefined {
  const repository = obj(payload.repository);
  const fullName = str(repository.full_name);
  if (fullName) return fullName;
  const owner = str(obj(repository.owner).login) ?? str(obj(repository.owner).name);
  const name = str(repository.name);
  return owner && name ? `${owner}/${name}` : undefined;
}

function withConclusion(event: Omit<CIEvent, 'conclusion'>, conclusion: string | undefined): CIEvent {
  return conclusion ? { ...event, conclusion } : event;
}

export function normalizeCodehostEvent(name: string | undefined, body: unknown): Normalized {
  if (!name) return { processed: false, reason: 'missing X-Codehost-Event header' };
  if (!(HANDLED_CODEHOST_EVENTS as readonly string[]).includes(name))
    return { processed: false, reason: `event type "${name}" is not handled` };
  const payload = obj(body);
  const repo = repoOf(payload);
  if (!repo) return { processed: false, reason: 'payload names no repository' };
  const action = str(payload.action);
  const type = name as CodehostEventName;

  if (type === 'workflow_run') {
    const run = obj(payload.workflow_run);
    const status = str(run.status) ?? action ?? 'unknown';
    const conclusion = str(run.conclusion);
    const title = str(run.name) ?? 'workflow';
    return {
      processed: true,
      action,
      event: withConclusion(
        {
          type,
          repo,
          branch: str(run.head_branch) ?? null,
          status,
          details: `Workflow "${title}" ${status}${conclusion ? ` (${conclusion})` : ''}`,
        },
        conclusion,
      ),
    };
  }
  if (type === 'pull_request') {
    const pr = obj(payload.pull_request);
    const merged = pr.merged === true;
    const status = action === 'closed' && merged ? 'merged' : (action ?? str(pr.state) ?? 'unknown');
    const number = typeof pr.number === 'number' ? `#${pr.number}` : '';
    return {
      processed: true,
      action,
      event: {
        type,
        repo,
        branch: str(obj(pr.head).ref) ?? null,
        status,
        details: `Pull request ${number} "${str(pr.title) ?? ''}" ${status}`.replace(/\s+/g, ' '),
      },
    };
  }
  if (type === 'push') {
    const ref = str(payload.ref);
    const branch = ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : (ref ?? null);
    const commits = Array.isArray(payload.commits) ? payload.commits.length : 0;
    const pusher = str(obj(payload.pusher).name) ?? str(obj(payload.sender).login) ?? 'someone';
    return {
      processed: true,
      action,
      event: {
        type,
        repo,
        branch,
        status: 'pushed',
        details: `${commits} commit${commits === 1 ? '' : 's'} pushed to ${branch ?? 'a ref'} by ${pusher}`,
      },
    };
  }
  const check = obj(payload.check_run);
  const status = str(check.status) ?? action ?? 'unknown';
  const conclusion = str(check.conclusion);
  return {
    processed: true,
    action,
    event: withConclusion(
      {
        type,
        repo,
        branch: str(obj(check.check_suite).head_branch) ?? null,
        status,
        details: `Check "${str(check.name) ?? 'check'}" ${status}${conclusion ? ` (${conclusion})` : ''}`,
      },
      conclusion,
    ),
  };
}
