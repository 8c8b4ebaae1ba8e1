// The least a workflow can be: started, one workflow task, completed. Bundled only by the Temporal floor
// benchmark, never by the gateway's worker.
export async function emptyWorkflow(): Promise<number> {
  return 1;
}
