/**
 * Whether an agentMessage's text may be disclosed, from its `moderation`
 * (Codex 0.169: `display: {action, ...}`; 0.171: `display: {mode: "show" |
 * "hide" | "block", version: 1, ...}`). Pure, fails closed: only an absent
 * moderation, or a plain 0.171 `show`, lets the text through.
 * @module
 */

/** Display modes the relay knows (0.171 `AgentMessageDisplay.mode`); any other withholds the text. */
export const DISPLAY_MODES = Object.freeze(["show", "hide", "block"] as const);

type DisplayMode = (typeof DISPLAY_MODES)[number];

/** The display instruction versions the relay knows. */
const DISPLAY_VERSIONS: readonly unknown[] = [1];

/** What the relay may say about one answer. */
export type ModerationVerdict =
  | { disclose: true }
  | {
    disclose: false;
    /** 0.171 `hide`: the kind of text Codex shows instead (e.g. `wellbeingPromptHelpline`). */
    replacement?: string;
    /** 0.171 `block`: the kind of reason (e.g. `protection`, `cyber`). */
    blockReason?: string;
  };

/**
 * `v[key]` when `v` is an object; undefined for null and undefined. (A JSON
 * array or primitive has none of the keys read here, so it reads as undefined.)
 */
function field(v: unknown, key: string): unknown {
  return typeof v === "object" && v !== null ? (v as Record<string, unknown>)[key] : undefined;
}

function isDisplayMode(v: unknown): v is DisplayMode {
  return (DISPLAY_MODES as readonly unknown[]).includes(v);
}

const KIND = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** The `kind` of a replacement or block reason, when it is a short identifier. */
function kindOf(v: unknown): string | undefined {
  const kind = field(v, "kind");
  return typeof kind === "string" && KIND.test(kind) ? kind : undefined;
}

/**
 * Judges `agentMessage.moderation` as `parseItem` stores it (null when
 * absent). The text may be disclosed when it is null; when `moderated` is
 * false and the display is null/absent; or when the display is a plain show
 * (`{mode: "show", version: 1}`, with or without an annotation). Everything
 * else withholds the text: a `hide` or `block`, a display instruction the
 * relay does not know (0.169's free-form `action`, a new mode or version),
 * `moderated: true` without a display, and any malformed value.
 */
export function moderationVerdict(moderation: unknown): ModerationVerdict {
  if (moderation === null) return { disclose: true };
  const moderated = field(moderation, "moderated");
  if (typeof moderated !== "boolean") return { disclose: false };
  const display = field(moderation, "display");
  if (display === null || display === undefined) {
    return moderated ? { disclose: false } : { disclose: true };
  }
  const mode = field(display, "mode");
  if (!isDisplayMode(mode) || !DISPLAY_VERSIONS.includes(field(display, "version"))) {
    return { disclose: false };
  }
  switch (mode) {
    case "show":
      return { disclose: true };
    case "hide": {
      const replacement = kindOf(field(display, "replacement"));
      return replacement ? { disclose: false, replacement } : { disclose: false };
    }
    case "block": {
      const blockReason = kindOf(field(display, "reason"));
      return blockReason ? { disclose: false, blockReason } : { disclose: false };
    }
  }
}
