// A raw server-sent-events reader for stream tests: GETs a URL and frames what arrives by hand (event
// and data lines, blank-line dispatch), in arrival order, so tests see the wire itself rather than a
// client library's reading of it. It keeps no arrival times: tests judge order, never the clock.
import http from 'node:http';

export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

export interface StreamResult {
  status: number;
  contentType: string;
  /** Everything the server sent before it closed the stream, in order. */
  events: SseEvent[];
}

/** Reads the stream until the server closes it; `onEvent` sees each event as it comes. */
export function readStream(
  url: string,
  headers: Record<string, string> = {},
  onEvent: (event: SseEvent) => void = () => {},
): Promise<StreamResult> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
        const events: SseEvent[] = [];
        let buffer = '';
        let current: { event: string; data: string[] } = { event: 'message', data: [] };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let newline: number;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + 1);
            if (line === '') {
              if (current.data.length > 0) {
                const event = {
                  event: current.event,
                  data: JSON.parse(current.data.join('\n')) as Record<string, unknown>,
                };
                events.push(event);
                onEvent(event);
              }
              current = { event: 'message', data: [] };
            } else if (line.startsWith('data:')) current.data.push(line.slice(5).trim());
            else if (line.startsWith('event:')) current.event = line.slice(6).trim();
          }
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type']),
            events,
          }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}
