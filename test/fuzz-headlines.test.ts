// The fuzz tier names each failure in a line of its own, so the last lines of a run's log say what failed
// even when the whole text (with its curl lines) is cut from view. The input is schemathesis 4's own
// failures section, as it prints it.
import { headlinesOf } from './fuzz/schemathesis';

const FAILURES = `=================================== FAILURES ===================================
____________________________________ GET /x ____________________________________
1. Test Case ID: eodZwl

- ST201 Schema-violating request accepted

    Invalid data should have been rejected
    Expected: 400, 401, 403, 404, 405, 406, 409, 415, 422, 428, 429, 5xx
    Invalid component: Missing \`q\` at query

[200] OK:

    \`{}\`

Reproduce with:

    curl -X GET http://127.0.0.1:8911/x

    st replay eodZwl

2. Test Case ID: HEsg2F

- ST101 Server error

- ST103 Undocumented status code

    Received: 500
    Documented: 200

[500] Internal Server Error:

    \`{}\`

Reproduce with:

    curl -X GET 'http://127.0.0.1:8911/x?q=1423'

    st replay HEsg2F

_____________________________ POST /v1/wallets/{id} _____________________________
- ST103 Undocumented status code

    Received: 503
    Documented: 200, 404

[503] Service Unavailable:

    \`{"error":{}}\`
`;

it('names every failing case with its operation, the checks it failed and the status it got', () => {
  expect(headlinesOf(FAILURES)).toEqual([
    'GET /x: ST201 Schema-violating request accepted [200]',
    'GET /x: ST101 Server error; ST103 Undocumented status code [500]',
    'POST /v1/wallets/{id}: ST103 Undocumented status code [503]',
  ]);
});

it('has nothing to name when the run found nothing', () => {
  expect(headlinesOf('')).toEqual([]);
});
