/**
 * The benchmark's baseline: a minimal JSON-RPC client of `codex app-server`
 * on `Deno.Command` doing exactly spawn, `initialize`, `initialized`, the
 * given requests in order (each awaited), and close (stdin EOF, then wait for
 * the exit), with no validation, bounds, timeouts or logging. {@linkcode openRaw}
 * keeps the connection open for many requests (a warm client).
 * @module
 */

/** One request to replay. */
export interface RawRequest {
  method: string;
  params: unknown;
}

/** An initialized raw connection to one app-server. */
export interface RawClient {
  /** Sends one request and resolves with its result. */
  call(method: string, params: unknown): Promise<unknown>;
  /** Closes stdin and resolves once the app-server has exited. */
  close(): Promise<void>;
}

const encoder = new TextEncoder();

/** Spawns an app-server and initializes it. */
export async function openRaw(command: string, env: Record<string, string>): Promise<RawClient> {
  const child = new Deno.Command(command, {
    args: ["app-server"],
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let nextId = 0;
  const call = async (method: string, params: unknown) => {
    const id = ++nextId;
    await writer.write(encoder.encode(JSON.stringify({ id, method, params }) + "\n"));
    for (;;) {
      let nl: number;
      while ((nl = buffer.indexOf("\n")) === -1) {
        const { value, done } = await lines.read();
        if (done) throw new Error(`app-server exited before answering ${method}`);
        buffer += value;
      }
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      if (message.id !== id || message.method !== undefined) continue;
      if (message.error) throw new Error(`${method}: ${JSON.stringify(message.error)}`);
      return message.result;
    }
  };
  await call("initialize", {
    clientInfo: { name: "raw_bench", title: "raw", version: "0.0.0" },
    capabilities: { experimentalApi: true },
  });
  await writer.write(encoder.encode(JSON.stringify({ method: "initialized" }) + "\n"));
  return {
    call,
    async close() {
      await writer.close();
      await lines.cancel();
      await child.status;
    },
  };
}

/** Runs one session with a fresh app-server; resolves when it has exited. */
export async function rawSession(
  command: string,
  env: Record<string, string>,
  requests: readonly RawRequest[],
): Promise<void> {
  const raw = await openRaw(command, env);
  for (const r of requests) await raw.call(r.method, r.params);
  await raw.close();
}
