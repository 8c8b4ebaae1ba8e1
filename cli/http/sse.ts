// Reads a server-sent-events body as the WHATWG spec frames it (id/event/data lines, a blank line
// dispatches, comments ignored) and hands each event over the moment it is complete.
export interface StreamEvent {
  id: string | null;
  event: string;
  data: string;
}

export async function readEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: StreamEvent) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  let current: { id: string | null; event: string; data: string[] } = {
    id: null,
    event: 'message',
    data: [],
  };
  const reader = body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r\n|\n|\r/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      if (line === '') {
        if (current.data.length > 0)
          onEvent({ id: current.id, event: current.event, data: current.data.join('\n') });
        current = { id: null, event: 'message', data: [] };
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const fieldValue = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') current.data.push(fieldValue);
      else if (field === 'event') current.event = fieldValue;
      else if (field === 'id') current.id = fieldValue;
    }
  }
}
