// The 200-tool session of the MCP bench, built from the catalog: the public postal-codes server is given
// 199 more read tools in this process, where the API under test reads them. Imported before anything loads
// the tool registry, which builds the catalog's tool specs once.
import { catalogServer } from '../../domain/providers/catalog';

const server = catalogServer('postal-codes')!;
for (let i = server.tools.length; i < 200; i++) {
  server.tools.push({
    name: `lookup_${i}`,
    description: `Postal lookup variant ${i}: resolves a CEP to its street, district and city.`,
    moves_money: false,
    input_schema: {
      type: 'object',
      required: ['cep'],
      additionalProperties: false,
      properties: { cep: { type: 'string', pattern: '^[0-9]{8}$' }, detail: { enum: ['short', 'full'] } },
    },
  });
}
