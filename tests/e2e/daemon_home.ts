/**
 * A real app-server daemon for end-to-end tests and its raw client: see
 * `testing/daemon_client.ts` (shared with the benchmark).
 * @module
 */

export {
  DaemonClient,
  type DaemonInfo,
  startDaemon,
  stopDaemon,
} from "../../testing/daemon_client.ts";
