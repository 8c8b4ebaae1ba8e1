// What the worker probe reports: the database's clock and the schema version its worker reached.
export interface ProbeResult {
  database_time: string;
  schema_version: string | null;
}
