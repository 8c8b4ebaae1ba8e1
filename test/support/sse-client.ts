// A raw HTTP server-sent-events reader for tests: POSTs a JSON body, parses the event stream as the
// WHATWG spec frames it (id/event/data lines, blank-line dispatch, comments ignored), and resolves once
// the server closes the stream. Events keep their arrival order and no arrival times: tests judge
// order, never the clock.
import http from 'node:http';

export interface SseEvent {
  id: string | null;
  event: string;
  data: unknown;
}

export function readEventStream(
  url: string,
  key: string,
  body: unknown,
): Promise<{ status: number; contentType: string; events: SseEvent[]; text?: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const events: SseEvent[] = [];
        let buffer = '';
        let current: { id: string | null; event: string; data: string[] } = {
          id: null,
          event: 'message',
          data: [],
        };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let newline: number;
          while ((newline = buffer.search(/\r\n|\n|\r/)) >= 0) {
            const line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
            if (line === '') {
              if (current.data.length > 0) {
                const text = current.data.join('\n');
                let data: unknown = text;
                try {
                  data = JSON.parse(text);
                } catch {
                  /* plain text data */
                }
                events.push({ id: current.id, event: current.event, data });
              }
              current = { id: null, event: 'message', data: [] };
              continue;
            }
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'data') current.data.push(value);
            else if (field === 'event') current.event = value;
            else if (field === 'id') current.id = value;
          }
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            events,
            text: events.length === 0 ? buffer : undefined,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
