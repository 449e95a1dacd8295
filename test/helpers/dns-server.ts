import { type Answer, Packet, startLoopbackDns } from './dns-loopback.js';

// RFC 1035 response codes (dns2 has them as Packet.RCODE, but its type declarations do not).
const SERVFAIL = 2;
const NXDOMAIN = 3;

/** What the server answers for a name: TXT records (each a list of strings), or a failure. */
export type DnsAnswer = string[][] | 'SERVFAIL' | 'TIMEOUT';

export interface DnsServer {
  /** `127.0.0.1:<port>`, for DNS_SERVERS. */
  address: string;
  /** Names not in here are answered NXDOMAIN. */
  records: Map<string, DnsAnswer>;
  /** Every name asked about, in order. */
  queries: string[];
  close(): Promise<void>;
}

/** A real DNS server on loopback UDP (dns2), answering TXT questions from `records`. */
export async function startDnsServer(): Promise<DnsServer> {
  const records = new Map<string, DnsAnswer>();
  const queries: string[] = [];
  const server = await startLoopbackDns((name, type, response) => {
    queries.push(name);
    const answer = records.get(name);
    if (answer === 'TIMEOUT') return false;
    if (answer === undefined) response.header.rcode = NXDOMAIN;
    else if (answer === 'SERVFAIL') response.header.rcode = SERVFAIL;
    else if (type === Packet.TYPE.TXT) {
      for (const data of answer) {
        // Plain records are what dns2 encodes; its types ask for a class instance.
        const record = { name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 60, data };
        response.answers.push(record as unknown as Answer);
      }
    }
    return true;
  });
  return { ...server, records, queries };
}
