// Temporal's payload converter for the gateway: the SDK's default converters, with JSON payloads read by
// the gateway's reader (contracts/json-parse.ts). Workflow inputs, activity answers, signals and updates
// are decoded inside the workflow sandbox, whose JSON is frozen and cannot be given that reader, so the
// converter brings it. Encoding is the SDK's own, byte for byte: recorded histories replay unchanged.
import {
  BinaryPayloadConverter,
  CompositePayloadConverter,
  JsonPayloadConverter,
  UndefinedPayloadConverter,
  ValueError,
  type Payload,
} from '@temporalio/common';
import { decode } from '@temporalio/common/lib/encoding';
import { parseJson } from '../contracts/json-parse';

class JsonReaderPayloadConverter extends JsonPayloadConverter {
  override fromPayload<T>(content: Payload): T {
    if (content.data === undefined || content.data === null) throw new ValueError('Got payload with no data');
    return parseJson(decode(content.data)) as T;
  }
}

export const payloadConverter = new CompositePayloadConverter(
  new UndefinedPayloadConverter(),
  new BinaryPayloadConverter(),
  new JsonReaderPayloadConverter(),
);
