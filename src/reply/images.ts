/**
 * Images a run or a steer hands Codex (`images: [{path} | {dataUrl}]`): the
 * bounds, and Codex's input items they become. A path goes as Codex's
 * `localImage` (Codex reads the file, the relay never does); a data URL as
 * `image`. Whatever is refused is refused before anything is sent, saying why
 * (docs/design.md, "Images").
 * @module
 */

import { z } from "zod";
import { utf8Length } from "./inputs.ts";
import type { ImageInput } from "../codex/methods.ts";

/** At most this many images per message. */
export const MAX_IMAGES = 8;

/**
 * All data URLs of one message together, in bytes: Codex echoes a message's
 * images in single frames (the user item, `thread/queue/add`'s answer), and
 * the relay reads no frame over 1 MiB.
 */
export const MAX_DATA_URL_BYTES = 768 * 1024;

/** The file extensions a path may have (what Codex decodes). */
export const IMAGE_EXTENSIONS = ["png", "jpg", "jpeg", "gif", "webp"] as const;

const DATA_URL = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/;
const EXTENSION = new RegExp(`\\.(${IMAGE_EXTENSIONS.join("|")})$`, "i");

/** Why `path` cannot go as a `localImage`, or undefined. */
function pathProblem(path: string): string | undefined {
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f]/.test(path) || !path.isWellFormed()) {
    return "has a control character or a lone surrogate";
  }
  if (!/^(\/|[A-Za-z]:[\\/])/.test(path)) {
    return "is not absolute (Codex would read it relative to the thread's cwd)";
  }
  if (!EXTENSION.test(path)) {
    return `does not end in an image extension (${IMAGE_EXTENSIONS.join(", ")})`;
  }
  return undefined;
}

/** Why `url` cannot go as an `image`, or undefined. */
function urlProblem(url: string): string | undefined {
  if (/^https?:/i.test(url)) {
    return "is a remote URL: Codex 0.169-0.171 refuse them (remote image URLs are not supported); download the image and give its path, or a data URL";
  }
  if (!DATA_URL.test(url)) return "is not a base64 data:image/png, jpeg, gif or webp URL";
  return undefined;
}

/** One image: exactly one of `path` and `dataUrl` (one object: a small advertised schema). */
const image = z.strictObject({ path: z.string().min(1).max(4096), dataUrl: z.string().min(1) })
  .partial().refine((img) => (img.path === undefined) !== (img.dataUrl === undefined), {
    message: "Give each image exactly one of path or dataUrl; nothing was sent",
  });

/**
 * The `images` field of `codex_run`, `codex_steer` and the compatibility
 * tools; a breach of a bound is a validation error naming the image.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(imagesInput.safeParse([{ path: "/tmp/shot.png" }]).success, true);
 * assert.equal(imagesInput.safeParse([{ dataUrl: "https://example.com/a.png" }]).success, false);
 * ```
 */
export const imagesInput = z.array(image).max(MAX_IMAGES).superRefine((images, ctx) => {
  let bytes = 0;
  for (const [i, img] of images.entries()) {
    const problem = img.path !== undefined
      ? pathProblem(img.path)
      : img.dataUrl !== undefined
      ? urlProblem(img.dataUrl)
      : undefined;
    const field = img.path !== undefined ? "path" : "dataUrl";
    if (problem) {
      ctx.addIssue({
        // Stryker disable next-line StringLiteral: the SDK tells the client an issue's message and path, never its code
        code: "custom",
        message: `Image ${i + 1}'s ${field} ${problem}; nothing was sent`,
      });
    }
    bytes += utf8Length(img.dataUrl ?? "");
  }
  if (bytes > MAX_DATA_URL_BYTES) {
    ctx.addIssue({
      // Stryker disable next-line StringLiteral: the SDK tells the client an issue's message and path, never its code
      code: "custom",
      message:
        `The data URLs are ${bytes} bytes in all; the limit is ${MAX_DATA_URL_BYTES} per message (give large images by path); nothing was sent`,
    });
  }
}).optional().describe(`≤${MAX_IMAGES} images, each {path} (absolute) or {dataUrl} (data:image/…)`);

/**
 * Codex's input items of checked images.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(imageInputs([{ path: "/a.png" }]), [{ type: "localImage", path: "/a.png" }]);
 * ```
 */
export function imageInputs(images: z.output<typeof imagesInput>): ImageInput[] {
  return (images ?? []).map((img): ImageInput =>
    img.path !== undefined
      ? { type: "localImage", path: img.path }
      : { type: "image", url: img.dataUrl! }
  );
}
