/**
 * How each Codex server→client request is shown to the MCP client, and how
 * the client's answer (or the router's own) is written back in the shape that
 * method needs. Shapes follow Codex 0.169 (captures 08 and 09, and the
 * generated schema).
 * @module
 */

type Obj = Record<string, unknown>;

/** An MCP client answer to one input request. */
export interface ClientAnswer {
  action: "accept" | "decline" | "cancel";
  content?: Obj;
}

/** How a Codex request is forwarded. */
export type Forward =
  | {
    kind: "form";
    message: string;
    requestedSchema: Obj;
    /** The Codex result for an accepted, schema-valid answer. */
    accept(content: Obj): unknown;
  }
  | { kind: "url"; message: string; url: string }
  /** The client cannot be asked: the router answers `decline` itself, and tells the caller. */
  | { kind: "unsupported"; summary: string };

/**
 * Every `mode` of `mcpServer/elicitation/request` the relay classifies:
 * forwarded to the client, or declined at once (the client cannot give what
 * it asks for: `openai/userVerification` wants a device-bound proof). A mode
 * not listed is declined too; the drift check (tests/e2e/drift_test.ts) fails
 * when a Codex release has a mode missing here.
 */
export const ELICITATION_MODES: Readonly<Record<string, "forward" | "decline">> = Object.freeze({
  form: "forward",
  url: "forward",
  "openai/form": "forward",
  openaiForm: "forward",
  "openai/userVerification": "decline",
});

/** The server→client methods the router handles; anything else gets a JSON-RPC error. */
export const ROUTED_METHODS: ReadonlySet<string> = new Set([
  "mcpServer/elicitation/request",
  "item/commandExecution/requestApproval",
  "item/fileChange/requestApproval",
  "item/permissions/requestApproval",
  "item/tool/requestUserInput",
]);

// Stryker disable ArrayDeclaration,StringLiteral: read only by the drift check against the real Codex schema (tests/e2e/drift_test.ts): the router refuses every method outside ROUTED_METHODS whatever this list holds
/**
 * Server→client methods Codex defines that the relay refuses with a JSON-RPC
 * error (it runs no tools, holds no ChatGPT tokens, makes no attestations; the
 * last two are the v1 approvals, replaced by the routed v2 ones). With
 * {@linkcode ROUTED_METHODS} this names every method the relay classifies; the
 * drift check fails on a method in neither.
 */
export const REFUSED_METHODS: ReadonlySet<string> = new Set([
  "item/tool/call",
  "account/chatgptAuthTokens/refresh",
  "attestation/generate",
  "currentTime/read",
  "applyPatchApproval",
  "execCommandApproval",
]);
// Stryker restore ArrayDeclaration,StringLiteral

const MAX_SHOWN = 2000;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function shown(v: unknown): string {
  const s = typeof v === "string" ? v : JSON.stringify(v ?? "");
  return s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN)}…` : s;
}

interface Option {
  const: string;
  title: string;
  codex: unknown;
}

function decisionForm(
  message: string,
  options: Option[],
  wrap: (codex: unknown) => unknown,
): Forward {
  return {
    kind: "form",
    message,
    requestedSchema: {
      type: "object",
      properties: {
        decision: {
          type: "string",
          title: "Decision",
          oneOf: options.map((o) => ({ const: o.const, title: o.title })),
        },
      },
      required: ["decision"],
    },
    accept: (content) => {
      // An option's Codex value may be null (allow once, deny): never read it as "not chosen".
      const chosen = options.find((o) => o.const === content.decision);
      return wrap(chosen ? chosen.codex : "decline");
    },
  };
}

const DECISION_TITLES: Record<string, string> = {
  accept: "Accept",
  acceptForSession: "Accept for the rest of this session",
  decline: "Decline (the turn goes on)",
  cancel: "Cancel (the turn stops)",
};

function approvalOptions(available: unknown): Option[] {
  const list = Array.isArray(available) && available.length > 0
    ? available
    : ["accept", "decline", "cancel"];
  const options: Option[] = [];
  for (const entry of list) {
    if (typeof entry === "string") {
      options.push({ const: entry, title: DECISION_TITLES[entry] ?? entry, codex: entry });
    } else if (isObj(entry) && "acceptWithExecpolicyAmendment" in entry) {
      options.push({
        const: "acceptWithExecpolicyAmendment",
        title: "Accept, and allow matching commands from now on",
        codex: entry,
      });
    } else if (isObj(entry) && isObj(entry.applyNetworkPolicyAmendment)) {
      const amendment = entry.applyNetworkPolicyAmendment.network_policy_amendment as
        | Obj
        | undefined;
      options.push({
        const: `applyNetworkPolicyAmendment${options.length}`,
        title: `${shown(amendment?.action)} network access to ${
          shown(amendment?.host)
        } from now on`,
        codex: entry,
      });
    }
  }
  return options;
}

function reasonSuffix(params: Obj): string {
  return typeof params.reason === "string" && params.reason
    ? ` (reason: ${shown(params.reason)})`
    : "";
}

/** How `method` with `params` is forwarded to the client. */
export function forwardOf(method: string, params: Obj): Forward {
  switch (method) {
    case "item/commandExecution/requestApproval":
      return decisionForm(
        `Codex asks to run a command${reasonSuffix(params)}.\nCommand: ${
          shown(params.command)
        }\nIn: ${shown(params.cwd)}`,
        approvalOptions(params.availableDecisions),
        (decision) => ({ decision }),
      );
    case "item/fileChange/requestApproval":
      return decisionForm(
        `Codex asks to change files${reasonSuffix(params)}${
          typeof params.grantRoot === "string"
            ? `, with write access under ${shown(params.grantRoot)}`
            : ""
        }.`,
        approvalOptions(["accept", "acceptForSession", "decline", "cancel"]),
        (decision) => ({ decision }),
      );
    case "item/permissions/requestApproval":
      return decisionForm(
        `Codex asks for more permissions${reasonSuffix(params)}: ${shown(params.permissions)}`,
        [
          { const: "grant", title: "Grant for this turn", codex: "turn" },
          { const: "grantForSession", title: "Grant for this session", codex: "session" },
          { const: "deny", title: "Deny", codex: null },
        ],
        (scope) =>
          scope === null
            ? { permissions: {}, scope: "turn" }
            : { permissions: params.permissions ?? {}, scope },
      );
    case "item/tool/requestUserInput":
      return userInputForm(params);
    case "mcpServer/elicitation/request":
      return mcpElicitation(params);
    default:
      return {
        kind: "unsupported",
        summary: `Codex sent ${shown(method)}, which codex-relay cannot forward`,
      };
  }
}

function userInputForm(params: Obj): Forward {
  const questions = Array.isArray(params.questions) ? params.questions.filter(isObj) : [];
  if (questions.length === 0) {
    return { kind: "unsupported", summary: "Codex asked for user input without any question" };
  }
  const properties: Obj = {};
  for (const q of questions) {
    const id = String(q.id);
    const options = Array.isArray(q.options) ? q.options.filter(isObj) : [];
    properties[id] = {
      type: "string",
      title: shown(q.header),
      description: shown(q.question),
      ...(options.length > 0 && q.isOther !== true
        ? { oneOf: options.map((o) => ({ const: String(o.label), title: shown(o.label) })) }
        : {}),
    };
  }
  return {
    kind: "form",
    message: `Codex asks: ${questions.map((q) => shown(q.question)).join(" / ")}`,
    requestedSchema: { type: "object", properties, required: Object.keys(properties) },
    accept: (content) => ({
      answers: Object.fromEntries(
        Object.entries(content).map(([k, v]) => [k, { answers: [String(v)] }]),
      ),
    }),
  };
}

function mcpElicitation(params: Obj): Forward {
  const server = shown(params.serverName);
  const meta = isObj(params._meta) ? params._meta : {};
  if (meta.codex_approval_kind === "mcp_tool_call") {
    // Stryker disable next-line ArrayDeclaration: a default that holds neither "session" nor "always" offers what [] offers
    const persist = Array.isArray(meta.persist) ? meta.persist : [];
    const options: Option[] = [{ const: "accept", title: "Allow", codex: null }];
    if (persist.includes("session")) {
      options.push({
        const: "acceptForSession",
        title: "Allow for this session",
        codex: "session",
      });
    }
    if (persist.includes("always")) {
      options.push({ const: "acceptAlways", title: "Always allow", codex: "always" });
    }
    options.push({ const: "decline", title: "Deny", codex: "deny" });
    return decisionForm(
      `${shown(params.message)}\nTool: ${
        shown(meta.tool_name)
      } (MCP server ${server})\nArguments: ${shown(meta.tool_params)}`,
      options,
      (persistAs) =>
        persistAs === "deny"
          ? { action: "decline", content: null, _meta: null }
          : { action: "accept", content: null, _meta: persistAs ? { persist: persistAs } : null },
    );
  }
  const mode = params.mode;
  const how = typeof mode === "string" && Object.hasOwn(ELICITATION_MODES, mode)
    ? ELICITATION_MODES[mode]
    : "decline";
  if (how === "decline") {
    const named = typeof mode === "string" ? JSON.stringify(mode.slice(0, 64)) : "no";
    return {
      kind: "unsupported",
      summary:
        `[${server}] asked for input of mode ${named}, which codex-relay cannot forward to you`,
    };
  }
  if (mode === "url" && typeof params.url === "string") {
    return { kind: "url", message: `[${server}] ${shown(params.message)}`, url: params.url };
  }
  if (
    (mode === "form" || mode === "openai/form" || mode === "openaiForm") &&
    isObj(params.requestedSchema)
  ) {
    return {
      kind: "form",
      message: `[${server}] ${shown(params.message)}`,
      requestedSchema: params.requestedSchema,
      accept: (content) => ({ action: "accept", content, _meta: null }),
    };
  }
  return {
    kind: "unsupported",
    summary: `[${server}] sent a ${shown(mode)} request without what that mode needs`,
  };
}

/** The Codex result for a client that declined or cancelled. */
export function refusalAnswer(method: string, action: "decline" | "cancel"): unknown {
  switch (method) {
    case "item/commandExecution/requestApproval":
    case "item/fileChange/requestApproval":
      return { decision: action };
    case "item/permissions/requestApproval":
      return { permissions: {}, scope: "turn" };
    case "item/tool/requestUserInput":
      return { answers: {} };
    default:
      return { action, content: null, _meta: null };
  }
}

/** The Codex result for a url-mode elicitation the client answered. */
export function urlAnswer(action: ClientAnswer["action"]): unknown {
  return { action, content: null, _meta: null };
}
