// Every test file's realm reads JSON as the gateway's processes do (contracts/json-parse.ts), so test
// code, the in-process API and the worker share the reader the production entry points install.
import { installJsonParse } from '../../contracts/json-parse';

installJsonParse();
