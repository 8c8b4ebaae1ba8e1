// The mock PSP's dynamic charges, shaped like the central bank's API Pix: `PUT /cob/{txid}` creates a
// charge (idempotent per txid) with its BR Code (`pixCopiaECola`, a dynamic payload pointing at the
// charge's location, with its CRC16), `GET /cob/{txid}` reads it, `PUT /webhook/{chave}` registers where
// a key's paid charges are notified. A test pays a charge with `pay(txid)`, as a buyer's bank would.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { crc16Hex } from '../../domain/pix/crc16';
import { writeTlv } from '../../domain/pix/emv-tlv';
import { readJson, sendJson } from './http-kit';

export interface MockCob {
  txid: string;
  revisao: number;
  status: 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_PSP';
  calendario: { criacao: string; expiracao: number };
  location: string;
  chave: string;
  valor: { original: string };
  solicitacaoPagador?: string;
  pixCopiaECola: string;
  pix?: Array<{ endToEndId: string; txid: string; valor: string; horario: string }>;
}

export interface CobBook {
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
  /** The buyer's bank pays the charge; resolves once the PSP's notification got its answer (or none). */
  pay(txid: string): Promise<{ webhookStatus: number | null }>;
  get(txid: string): MockCob | undefined;
  all(): MockCob[];
  /** Every create request received, retries included. */
  creates(): string[];
}

/** A dynamic BR Code (EMV MPM, initiation 12): the account template carries the charge's location, not the key. */
export function dynamicBrCode(input: {
  location: string;
  amount: string;
  merchantName: string;
  merchantCity: string;
}): string {
  const account = writeTlv('00', 'br.gov.bcb.pix') + writeTlv('25', input.location);
  const body = [
    writeTlv('00', '01'),
    writeTlv('01', '12'),
    writeTlv('26', account),
    writeTlv('52', '0000'),
    writeTlv('53', '986'),
    writeTlv('54', input.amount),
    writeTlv('58', 'BR'),
    writeTlv('59', input.merchantName),
    writeTlv('60', input.merchantCity),
    writeTlv('62', writeTlv('05', '***')),
    '6304',
  ].join('');
  return body + crc16Hex(body);
}

const TXID = /^[a-zA-Z0-9]{26,35}$/;

export function cobBook(): CobBook {
  const cobs = new Map<string, { cob: MockCob; fingerprint: string }>();
  const webhooks = new Map<string, string>();
  const created: string[] = [];

  const create = async (req: IncomingMessage, res: ServerResponse, txid: string, host: string) => {
    const body = await readJson(req);
    created.push(txid);
    const valor = body.valor as { original?: unknown } | undefined;
    const calendario = body.calendario as { expiracao?: unknown } | undefined;
    if (!TXID.test(txid))
      return sendJson(res, 400, {
        title: 'txid inválido',
        status: 400,
        detail: 'txid: 26 a 35 caracteres alfanuméricos',
      });
    if (
      typeof body.chave !== 'string' ||
      typeof valor?.original !== 'string' ||
      !/^\d{1,10}\.\d{2}$/.test(valor.original)
    ) {
      return sendJson(res, 400, {
        title: 'Cobrança inválida',
        status: 400,
        detail: 'chave e valor.original (0.00) são obrigatórios',
      });
    }
    const fingerprint = JSON.stringify([body.chave, valor.original]);
    const existing = cobs.get(txid);
    if (existing) {
      if (existing.fingerprint !== fingerprint)
        return sendJson(res, 409, {
          title: 'txid em uso',
          status: 409,
          detail: 'Outra cobrança usa este txid',
        });
      return sendJson(res, 200, existing.cob);
    }
    const location = `${host}/qr/v2/${randomBytes(16).toString('hex')}`;
    const cob: MockCob = {
      txid,
      revisao: 0,
      status: 'ATIVA',
      calendario: {
        criacao: new Date().toISOString(),
        expiracao: typeof calendario?.expiracao === 'number' ? calendario.expiracao : 3600,
      },
      location,
      chave: body.chave,
      valor: { original: valor.original },
      ...(typeof body.solicitacaoPagador === 'string' ? { solicitacaoPagador: body.solicitacaoPagador } : {}),
      pixCopiaECola: dynamicBrCode({
        location,
        amount: valor.original,
        merchantName: 'LOJA MOCK',
        merchantCity: 'SAO PAULO',
      }),
    };
    cobs.set(txid, { cob, fingerprint });
    return sendJson(res, 201, cob);
  };

  return {
    async handle(req, res, url) {
      const cob = /^\/cob\/([^/]+)$/.exec(url.pathname);
      if (cob && req.method === 'PUT')
        return create(req, res, decodeURIComponent(cob[1]), req.headers.host ?? 'psp.mock');
      if (cob && req.method === 'GET') {
        const found = cobs.get(decodeURIComponent(cob[1]));
        return found
          ? sendJson(res, 200, found.cob)
          : sendJson(res, 404, { title: 'Cobrança não encontrada', status: 404 });
      }
      const hook = /^\/webhook\/([^/]+)$/.exec(url.pathname);
      if (hook && req.method === 'PUT') {
        const body = await readJson(req);
        if (typeof body.webhookUrl !== 'string')
          return sendJson(res, 400, { title: 'webhookUrl obrigatório', status: 400 });
        webhooks.set(decodeURIComponent(hook[1]), body.webhookUrl);
        return sendJson(res, 200, { chave: decodeURIComponent(hook[1]), webhookUrl: body.webhookUrl });
      }
      return sendJson(res, 404, { title: 'Rota desconhecida', status: 404 });
    },
    async pay(txid) {
      const entry = cobs.get(txid);
      if (!entry || entry.cob.status !== 'ATIVA') throw new Error(`no active charge ${txid}`);
      // As at a real PSP, a charge past its expiry cannot be paid: no money arrives for a released use.
      if (Date.now() > Date.parse(entry.cob.calendario.criacao) + entry.cob.calendario.expiracao * 1000)
        throw new Error(`charge ${txid} expired`);
      const pix = {
        endToEndId: `E99999008${Date.now()}${randomBytes(4).toString('hex')}`.slice(0, 32),
        txid,
        valor: entry.cob.valor.original,
        horario: new Date().toISOString(),
      };
      entry.cob.status = 'CONCLUIDA';
      entry.cob.pix = [pix];
      const url = webhooks.get(entry.cob.chave);
      if (!url) return { webhookStatus: null };
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ pix: [pix] }),
        });
        await response.arrayBuffer();
        return { webhookStatus: response.status };
      } catch {
        return { webhookStatus: null };
      }
    },
    get: (txid) => cobs.get(txid)?.cob,
    all: () => [...cobs.values()].map((entry) => entry.cob),
    creates: () => [...created],
  };
}
