// Who may do what to which project of an organization. A key (or an OAuth token made from one) is bound
// to one project: it reads every project of its organization, but changes only its own, and only in its
// own environment. The service credential acts for the whole organization.
import { ApiError, unauthorized } from '../errors';
import type { Environment } from './api-key-format';

export interface ProjectCaller {
  kind: 'api_key' | 'oauth' | 'service';
  projectId: string;
  environment: Environment;
}

/**
 * `record`: the project's own row (id, name, slug, environment), which the organization's list shows anyway.
 * `settings`: reading its settings or their history, which configure how its money moves.
 * `write`: renaming, re-slugging, making default, changing settings, deleting.
 */
export type ProjectAccess = 'record' | 'settings' | 'write';

export const PROJECT_ACCESS_RULE =
  'A key (or OAuth token) is bound to one project: it reads every project of its organization, but renames, re-slugs, ' +
  'makes default, reconfigures or deletes only its own (403 `project_not_writable` on another). Settings of a project ' +
  'in the other environment, and creating one there, answer 401 `{error: "unauthorized"}`: a `csk_test_` key never ' +
  'reaches live configuration. The service credential acts for the whole organization.';

/** Throws unless the caller may take this access to the project; the project is already known to be in the caller's organization. */
export function checkProjectAccess(
  caller: ProjectCaller,
  project: { id: string; environment: Environment },
  access: ProjectAccess,
): void {
  if (caller.kind === 'service' || access === 'record') return;
  // Authentication item 2: the key's environment must match the project it operates on.
  if (project.environment !== caller.environment) throw unauthorized();
  if (access === 'write' && project.id !== caller.projectId) {
    // Like project-scoped keys elsewhere: siblings are visible, never changeable, so one leaked key
    // cannot rename, reconfigure or delete the rest of the organization.
    throw new ApiError(
      403,
      'project_not_writable',
      `This key is bound to project ${caller.projectId} and can change only that project`,
      {
        key_project_id: caller.projectId,
        project_id: project.id,
      },
    );
  }
}

/** Creating a project: a key creates only in its own environment. */
export function checkProjectCreate(caller: ProjectCaller, environment: Environment): void {
  if (caller.kind !== 'service' && environment !== caller.environment) throw unauthorized();
}
