// The API's listener settings, shared by the API process, the test harness and the benchmarks' stacks, so
// every one of them answers over sockets that behave as production's do.
import type { Server } from 'node:http';

/**
 * Keep-alive connections from agents are reused. Idle sockets outlive a load balancer's and any client's
 * own idle timeout, so it is always the client that closes an idle socket: the server never closes one that
 * a client is about to send on (which the client would see as a reset).
 */
export function keepAgentsAlive(server: Server): void {
  server.keepAliveTimeout = 65_000;
}
