import assert from "assert";
import {
  CommandClientTransport,
  connectClient,
  type McpTestProtocol,
  START_STDERR_TAIL,
  startFailure,
} from "../../testing/mcp_client.ts";

const fixture = new URL("../fixtures_mcp/echo_server.ts", import.meta.url);
const repoRoot = new URL("../../", import.meta.url);

function echoServerArgs(): string[] {
  return [
    "run",
    "--no-prompt",
    // The repo's lock, read-only, and only what the test run installed (no download at start).
    "--frozen",
    "--cached-only",
    "--config",
    new URL("deno.json", repoRoot).pathname,
    "--allow-env=ECHO_PREFIX,ECHO_IGNORE_EOF",
    fixture.pathname,
  ];
}

for (const protocol of ["2026-07-28", "2025-11-25"] as McpTestProtocol[]) {
  Deno.test(`connectClient at ${protocol}: list + call echo, child exits 0 on close`, async () => {
    const { client, transport, close } = await connectClient({
      command: Deno.execPath(),
      args: echoServerArgs(),
      env: { ECHO_PREFIX: "relay:" },
      cwd: repoRoot.pathname,
      protocol,
    });
    let closed = false;
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), protocol);
      assert.equal(client.getProtocolEra(), protocol === "2026-07-28" ? "modern" : "legacy");
      assert.equal(client.getServerVersion()?.name, "echo-fixture");
      assert.equal(client.getInstructions(), "Test fixture: call `echo`.");
      assert.equal(typeof transport.pid, "number");

      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ["echo"]);
      assert.equal(tools[0].annotations?.readOnlyHint, true);
      assert.equal(tools[0].outputSchema?.type, "object");

      const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
      assert.equal(result.isError, undefined);
      assert.deepEqual(result.structuredContent, { echoed: "relay:hi" });
      assert.deepEqual(result.content, [{ type: "text", text: "relay:hi" }]);

      const invalid = await client.callTool({ name: "echo", arguments: { text: "" } });
      assert.equal(invalid.isError, true);

      const { code, stderr } = await close();
      closed = true;
      assert.equal(code, 0, `server stderr:\n${stderr}`);
      const status = await transport.exited;
      assert.equal(status.success, true);
      assert.equal(status.signal, null);
    } finally {
      if (!closed) await close();
    }
  });
}

Deno.test("CommandClientTransport kills a child that ignores stdin EOF", async () => {
  const transport = new CommandClientTransport({
    command: "sleep",
    args: ["30"],
    closeGraceMs: 200,
  });
  let closeEvents = 0;
  transport.onclose = () => closeEvents++;
  await transport.start();
  await transport.close();
  await transport.close(); // idempotent
  const status = await transport.exited;
  assert.equal(status.success, false);
  assert.equal(status.signal, "SIGTERM");
  assert.equal(transport.escalation, "SIGTERM", "the transport reports that EOF was not enough");
  assert.equal(closeEvents, 1);
});

Deno.test("CommandClientTransport reports a child that exits on its own", async () => {
  const transport = new CommandClientTransport({
    command: "sh",
    args: ["-c", "echo oops >&2; exit 3"],
  });
  const closed = Promise.withResolvers<void>();
  transport.onclose = () => closed.resolve();
  await transport.start();
  await closed.promise;
  assert.equal((await transport.exited).code, 3);
  assert.equal(transport.stderr, "oops\n");
  await transport.close();
  await assert.rejects(() =>
    transport.send({ jsonrpc: "2.0", method: "notifications/initialized" })
  );
});

Deno.test("CommandClientTransport reports no escalation when the child exits on stdin EOF", async () => {
  const transport = new CommandClientTransport({ command: "cat", closeGraceMs: 200 });
  await transport.start();
  await transport.close();
  assert.equal((await transport.exited).code, 0);
  assert.equal(transport.escalation, undefined);
});

Deno.test("connectClient's close fails when the server exits only on a signal, not on stdin EOF", async () => {
  const { close, transport } = await connectClient({
    command: Deno.execPath(),
    args: echoServerArgs(),
    env: { ECHO_IGNORE_EOF: "1" },
    cwd: repoRoot.pathname,
    protocol: "2026-07-28",
  });
  await assert.rejects(
    close,
    /did not exit within 2000 ms of stdin EOF; the test client sent SIGTERM/,
  );
  const status = await transport.exited;
  assert.equal(status.code, 0, "the exit code alone would have hidden it");
  assert.equal(transport.escalation, "SIGTERM");
});

Deno.test("a server that cannot start shows its own stderr (a module missing from the cache) in the connect failure", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mcp-client-cold-" });
  try {
    // A server whose one import is not in its (empty) module cache: with --cached-only it exits
    // at once with Deno's own error, and the SDK sees only a closed connection.
    await Deno.writeTextFile(`${dir}/server.ts`, 'import "npm:left-pad@1.3.0";\n');
    await Deno.mkdir(`${dir}/cache`);
    for (const protocol of ["2026-07-28", "2025-11-25"] as McpTestProtocol[]) {
      const error = await connectClient({
        command: Deno.execPath(),
        args: ["run", "--no-prompt", "--no-config", "--cached-only", `${dir}/server.ts`],
        env: { DENO_DIR: `${dir}/cache`, NO_COLOR: "1" },
        clearEnv: true,
        cwd: dir,
        protocol,
        timeoutMs: 20_000,
      }).then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof Error, `connecting at ${protocol} fails`);
      assert.match(error.message, /^Connecting to the server failed: /);
      assert.match(error.message, /exited with code 1/);
      assert.match(error.message, /The server's stderr:\n[\s\S]*left-pad/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a failed start keeps the end of a long stderr and says when there was none", () => {
  const long = startFailure(new Error("closed"), `${"x".repeat(9000)}\nerror: the real cause\n`, {
    code: 1,
    signal: null,
  });
  assert.match(
    long.message,
    /^Connecting to the server failed: closed \(the server exited with code 1\)\n/,
  );
  assert.ok(long.message.endsWith("error: the real cause"));
  assert.ok(long.message.length < START_STDERR_TAIL + 200);
  assert.ok(long.cause instanceof Error);
  const silent = startFailure("timeout", "  \n");
  assert.equal(
    silent.message,
    "Connecting to the server failed: timeout\nThe server wrote nothing on stderr.",
  );
});
