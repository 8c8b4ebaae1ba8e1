// Organizations: created by an operator together with their default project.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { notFound } from '../errors';
import { prefixedId } from '../ids';
import type { Environment } from './api-key-format';
import { insertProject, type ProjectRow } from './projects';

const orgRow = z.object({ id: z.string(), name: z.string(), created_at: z.string() });
export type OrganizationRow = z.infer<typeof orgRow>;

export async function createOrganization(
  db: DatabasePool,
  input: { name: string; environment?: Environment },
): Promise<{ organization: OrganizationRow; project: ProjectRow }> {
  return db.transaction(async (tx) => {
    const organization = await tx.one(sql.type(orgRow)`
      INSERT INTO organizations (id, name) VALUES (${prefixedId('org')}, ${input.name}) RETURNING id, name, created_at`);
    const environment = input.environment ?? 'test';
    const project = await insertProject(tx, {
      orgId: organization.id,
      name: 'Default',
      slug: environment === 'test' ? 'default-test' : 'default-live',
      environment,
      isDefault: true,
    });
    return { organization, project };
  });
}

export async function getOrganization(db: CommonQueryMethods, id: string): Promise<OrganizationRow> {
  const row = await db.maybeOne(
    sql.type(orgRow)`SELECT id, name, created_at FROM organizations WHERE id = ${id}`,
  );
  if (!row) throw notFound('Organization');
  return row;
}
