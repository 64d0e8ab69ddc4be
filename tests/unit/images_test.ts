/** Protects: the image bounds of codex_run, codex_steer and the compatibility tools (issue 50). */
import assert from "assert";
import {
  imageInputs,
  imagesInput,
  MAX_DATA_URL_BYTES,
  MAX_IMAGES,
} from "../../src/reply/images.ts";

const PNG = "data:image/png;base64,iVBORw0KGgo=";

function refusal(images: unknown): string {
  const out = imagesInput.safeParse(images);
  assert.equal(out.success, false, JSON.stringify(images).slice(0, 200));
  return out.error!.issues.map((i) => i.message).join("; ");
}

Deno.test("images: a path goes as localImage, a data URL as image, in order", () => {
  const images = imagesInput.parse([{ path: "/home/me/shot.PNG" }, { dataUrl: PNG }]);
  assert.deepEqual(imageInputs(images), [
    { type: "localImage", path: "/home/me/shot.PNG" },
    { type: "image", url: PNG },
  ]);
  assert.deepEqual(imageInputs(undefined), []);
});

Deno.test("images: each bound is refused, saying why and that nothing was sent", () => {
  const cases: [unknown, RegExp][] = [
    [Array(MAX_IMAGES + 1).fill({ path: "/a.png" }), /8/],
    [[{ dataUrl: "https://example.com/a.png" }], /remote URL: Codex 0\.169-0\.171 refuse them/],
    [[{ dataUrl: "http://example.com/a.png" }], /remote URL/],
    [[{ dataUrl: "data:text/plain;base64,aGk=" }], /not a base64 data:image/],
    [[{ path: "shots/a.png" }], /path is not absolute/],
    [[{ path: "/etc/passwd" }], /does not end in an image extension/],
    [[{ path: "/a\n.png" }], /control character/],
    [[{ path: "/a.png", dataUrl: PNG }], /exactly one of path or dataUrl/],
    [[{}], /exactly one of path or dataUrl/],
    [[{ url: PNG }], /url|Unrecognized/i],
  ];
  for (const [images, why] of cases) {
    const text = refusal(images);
    assert.match(text, why);
  }
  assert.match(refusal([{ path: "relative.png" }]), /nothing was sent/);
});

Deno.test("images: data URLs within the bound in all pass; past it they are refused", () => {
  const head = "data:image/png;base64,";
  const half = (MAX_DATA_URL_BYTES / 2) - head.length;
  const url = head + "A".repeat(half - (half % 4));
  const fits = [{ dataUrl: url }, { dataUrl: url }];
  assert.equal(imagesInput.safeParse(fits).success, true);
  const bytes = 2 * url.length;
  const over = head + "A".repeat(MAX_DATA_URL_BYTES - bytes + 4);
  assert.match(refusal([...fits, { dataUrl: over }]), /bytes in all; the limit is 786432/);
});
