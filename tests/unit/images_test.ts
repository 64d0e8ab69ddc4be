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
  assert.equal(
    refusal([{}]),
    "Give each image exactly one of path or dataUrl; nothing was sent",
    "said once, as neither a path nor a data URL",
  );
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

Deno.test("images: every image kind Codex decodes passes, by path (any case) or as a data URL", () => {
  const paths = [
    "/s.png",
    "/s.jpg",
    "/s.jpeg",
    "/s.gif",
    "/s.webp",
    "/s.WebP",
    "C:\\s.png",
    "c:/s.png",
  ];
  const urls = ["png", "jpeg", "gif", "webp"].map((t) => `data:image/${t};base64,R0lG+/9=`);
  const images = [...paths.map((path) => ({ path })), ...urls.map((dataUrl) => ({ dataUrl }))];
  for (const img of images) {
    assert.equal(imagesInput.safeParse([img]).success, true, JSON.stringify(img));
  }
  assert.equal(imagesInput.safeParse(Array(MAX_IMAGES).fill({ path: "/a.png" })).success, true);
  assert.equal(imagesInput.safeParse(undefined).success, true, "images are optional");
  assert.equal(
    imagesInput.description,
    "≤8 images, each {path} (absolute) or {dataUrl} (data:image/…)",
    "what tools/list tells the client",
  );
});

Deno.test("images: a near miss is refused, naming the image and its field", () => {
  const cases: [unknown[], string][] = [
    [
      [{ path: "/a.png" }, { path: "/a.png.sh" }],
      "Image 2's path does not end in an image extension (png, jpg, jpeg, gif, webp)",
    ],
    [[{ path: "/apng" }], "Image 1's path does not end in an image extension"],
    [[{ path: "/a.svg" }], "Image 1's path does not end in an image extension"],
    [
      [{ path: "x/C:/a.png" }],
      "Image 1's path is not absolute (Codex would read it relative to the thread's cwd)",
    ],
    [[{ path: "C:a.png" }], "Image 1's path is not absolute"],
    [[{ path: "1:/a.png" }], "Image 1's path is not absolute"],
    [[{ path: "/a\u001f.png" }], "Image 1's path has a control character or a lone surrogate"],
    [[{ path: "/a\u0000.png" }], "Image 1's path has a control character or a lone surrogate"],
    [[{ path: "/a\ud800.png" }], "Image 1's path has a control character or a lone surrogate"],
    [
      [{ path: "/a.png" }, { dataUrl: "HTTPS://example.com/a.png" }],
      "Image 2's dataUrl is a remote URL",
    ],
    [
      [{ dataUrl: "data:image/svg+xml;base64,PHN2Zz4=" }],
      "Image 1's dataUrl is not a base64 data:image/png, jpeg, gif or webp URL",
    ],
    [[{ dataUrl: "data:image/png;base64," }], "is not a base64 data:image"],
    [[{ dataUrl: "data:image/png;base64,iV*BOR" }], "is not a base64 data:image"],
    [[{ dataUrl: "data:image/png;base64,iVBOR===" }], "is not a base64 data:image"],
    [[{ dataUrl: "data:image/png;base64,iVBOR\n" }], "is not a base64 data:image"],
    [[{ dataUrl: "xdata:image/png;base64,iVBOR" }], "is not a base64 data:image"],
    [[{ dataUrl: "data:image/png;base64,iVBOR https://x" }], "is not a base64 data:image"],
    [[{ dataUrl: "data:image/png,iVBOR" }], "is not a base64 data:image"],
  ];
  for (const [images, why] of cases) {
    const text = refusal(images);
    assert.ok(text.includes(why), `${JSON.stringify(images)}: ${text}`);
    assert.ok(text.endsWith("; nothing was sent"), text);
  }
});

Deno.test("images: the data URLs' bound counts every URL's bytes, exactly", () => {
  const head = "data:image/png;base64,";
  const url = (bytes: number) => head + "A".repeat(bytes - head.length);
  const exact = [{ path: "/a.png" }, { dataUrl: url(1000) }, {
    dataUrl: url(MAX_DATA_URL_BYTES - 1000),
  }];
  assert.equal(imagesInput.safeParse(exact).success, true, "exactly the bound passes");
  const over = [{ dataUrl: url(1001) }, { dataUrl: url(MAX_DATA_URL_BYTES - 1000) }];
  assert.equal(
    refusal(over),
    `The data URLs are ${
      MAX_DATA_URL_BYTES + 1
    } bytes in all; the limit is ${MAX_DATA_URL_BYTES} per message (give large images by path); nothing was sent`,
  );
});
