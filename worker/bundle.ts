// The workflow bundle: prebuilt by `npm run build` (dist/workflow-bundle.js) for production, built in
// memory otherwise. Tests build it once per run and pass its path.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';
import { PROJECT_ROOT } from '../runtime/project-root';

export const WORKFLOWS_PATH = require.resolve('../workflows');
// Tracing's workflow interceptors: inert for a workflow whose headers carry no trace.
const INTERCEPTOR_MODULES = [require.resolve('../runtime/telemetry/workflow-interceptors')];
// Decodes payloads inside the sandbox with the gateway's JSON reader.
export const PAYLOAD_CONVERTER_PATH = require.resolve('../runtime/payload-converter');
// Loaded once per workflow thread and shared by every workflow it runs, instead of evaluated afresh for each
// (the SDK's reusable context): the workflow definitions and what they import keep no state at module
// scope, and the SDK freezes what they export.
const PRELOADED_MODULES = [WORKFLOWS_PATH, ...INTERCEPTOR_MODULES];
export const PREBUILT_BUNDLE = path.join(PROJECT_ROOT, 'dist', 'workflow-bundle.js');

const bundleOptions = () => ({
  workflowsPath: WORKFLOWS_PATH,
  workflowInterceptorModules: INTERCEPTOR_MODULES,
  payloadConverterPath: PAYLOAD_CONVERTER_PATH,
  preloadModules: PRELOADED_MODULES,
  logger: quietLogger,
});

export async function buildBundleFile(file: string): Promise<string> {
  const { code } = await bundleWorkflowCode(bundleOptions());
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, code);
  return file;
}

export async function loadBundle(
  file = process.env.GATEWAY_WORKFLOW_BUNDLE ?? PREBUILT_BUNDLE,
): Promise<WorkflowBundleOption> {
  if (existsSync(file)) return { codePath: file };
  const { code } = await bundleWorkflowCode(bundleOptions());
  return { code };
}

const noop = () => undefined;
/** The bundler's logger: only its errors reach stderr. */
export const quietLogger = {
  log: noop,
  trace: noop,
  debug: noop,
  info: noop,
  warn: noop,
  error: (message: string) => process.stderr.write(`${message}\n`),
};
