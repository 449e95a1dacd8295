import { type Answer, Packet, startLoopbackDns } from './dns-loopback.js';

export interface AddressDnsServer {
  /** `127.0.0.1:<port>`, for DNS_SERVERS or a NetworkPolicy's dnsServers. */
  address: string;
  /**
   * IPv4 answers per name, used in turn, one per A question; the last one repeats. A name not
   * in here gets no address. AAAA questions get no address.
   */
  answers: Map<string, string[]>;
  /** A questions asked per name. */
  asked: Map<string, number>;
  close(): Promise<void>;
}

/** A real DNS server on loopback UDP (dns2) answering A questions with TTL 0, for rebinding tests. */
export async function startAddressDnsServer(): Promise<AddressDnsServer> {
  const answers = new Map<string, string[]>();
  const asked = new Map<string, number>();
  const server = await startLoopbackDns((name, type, response) => {
    const list = answers.get(name);
    if (type !== Packet.TYPE.A || !list || list.length === 0) return;
    const n = asked.get(name) ?? 0;
    asked.set(name, n + 1);
    const address = list[Math.min(n, list.length - 1)] as string;
    const record = { name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 0, address };
    response.answers.push(record as unknown as Answer);
  });
  return { ...server, answers, asked };
}
