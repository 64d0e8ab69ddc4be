/**
 * Whether an agentMessage's text may be disclosed, from its `moderation`
 * (Codex 0.169: `display: {action, ...}`; 0.171: `display: {mode: "show" |
 * "hide" | "block", version: 1, ...}`). Pure, fails closed: only an absent
 * moderation, or a plain 0.171 `show`, lets the text through.
 * @module
 */

/** Display modes the relay knows (0.171 `AgentMessageDisplay.mode`); anything else withholds. */
export const DISPLAY_MODES: Readonly<Record<string, "show" | "withhold">> = Object.freeze({
  show: "show",
  hide: "withhold",
  block: "withhold",
});

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

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const KIND = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** The `kind` of a replacement or block reason, when it is a short identifier. */
function kindOf(v: unknown): string | undefined {
  if (!isObj(v)) return undefined;
  return typeof v.kind === "string" && KIND.test(v.kind) ? v.kind : undefined;
}

/**
 * Judges `agentMessage.moderation`. The text may be disclosed when it is
 * null/absent; when `moderated` is false and the display is null/absent or a
 * plain show; or when the display is a plain show (`{mode: "show", version:
 * 1}`, with or without an annotation). Everything else withholds the text: a
 * `hide` or `block`, a display instruction the relay does not know (0.169's
 * free-form `action`, a new mode or version), `moderated: true` without a
 * display, and any malformed value.
 */
export function moderationVerdict(moderation: unknown): ModerationVerdict {
  if (moderation === null || moderation === undefined) return { disclose: true };
  if (!isObj(moderation) || typeof moderation.moderated !== "boolean") return { disclose: false };
  const display = moderation.display;
  if (display === null || display === undefined) {
    return moderation.moderated ? { disclose: false } : { disclose: true };
  }
  if (!isObj(display) || typeof display.mode !== "string") return { disclose: false };
  if (!DISPLAY_VERSIONS.includes(display.version)) return { disclose: false };
  if (!Object.hasOwn(DISPLAY_MODES, display.mode)) return { disclose: false };
  switch (display.mode) {
    case "show":
      return { disclose: true };
    case "hide": {
      const replacement = kindOf(display.replacement);
      return replacement ? { disclose: false, replacement } : { disclose: false };
    }
    case "block": {
      const blockReason = kindOf(display.reason);
      return blockReason ? { disclose: false, blockReason } : { disclose: false };
    }
    default:
      return { disclose: false };
  }
}
