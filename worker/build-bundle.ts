// `npm run build` step: writes the workflow bundle the production worker loads at start.
import { buildBundleFile, PREBUILT_BUNDLE } from './bundle';

buildBundleFile(PREBUILT_BUNDLE)
  .then((file) => process.stdout.write(`workflow bundle written to ${file}\n`))
  .catch((error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  });
