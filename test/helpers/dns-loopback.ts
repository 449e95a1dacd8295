import dns2 from 'dns2';

export const { Packet } = dns2;
export type DnsResponse = ReturnType<typeof Packet.createResponseFromRequest>;
export type Answer = InstanceType<typeof Packet>['answers'][number];

/**
 * A real DNS server on loopback UDP (dns2): `answer` fills the response to each question (name
 * lowercased) and returns false to send nothing at all (a timeout).
 */
export async function startLoopbackDns(
  answer: (name: string, type: number | undefined, response: DnsResponse) => unknown,
): Promise<{ address: string; close(): Promise<void> }> {
  const server = dns2.createUDPServer((request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    if (answer((question?.name ?? '').toLowerCase(), question?.type, response) === false) return;
    send(response);
  });
  await server.listen(0, '127.0.0.1');
  const { port } = server.address();
  return {
    address: `127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
