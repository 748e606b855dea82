import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { ROOT } from "../../tools/lib/config";

/** A colour to count pixels near: [r, g, b], or the image's most common colour (its background). */
export type PixelColour = [number, number, number] | "most common";

/**
 * Pixel counts of a PNG screenshot, decoded by the page itself (an <img> drawn on a canvas): for
 * each colour, the share of pixels within `tolerance` of it in every channel.
 */
export async function sharesNear(
  page: Page,
  png: Buffer,
  colours: PixelColour[],
  tolerance: number,
): Promise<number[]> {
  return page.evaluate(
    async ({ png, colours, tolerance }) => {
      const img = new Image();
      img.src = `data:image/png;base64,${png}`;
      await img.decode();
      const canvas = document.createElement("canvas");
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const ctx = canvas.getContext("2d")!;
      ctx.drawImage(img, 0, 0);
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      const mostCommon = () => {
        const counts = new Map<number, number>();
        for (let i = 0; i < data.length; i += 4) {
          const key = (data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
        const [key] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
        return [(key >> 16) & 255, (key >> 8) & 255, key & 255];
      };
      const pixels = data.length / 4;
      return colours.map((colour) => {
        const rgb = colour === "most common" ? mostCommon() : colour;
        let near = 0;
        for (let i = 0; i < data.length; i += 4)
          if (rgb.every((v, k) => Math.abs(data[i + k]! - v) <= tolerance)) near++;
        return near / pixels;
      });
    },
    { png: png.toString("base64"), colours, tolerance },
  );
}

/**
 * The share of an element's pixels that differ from its most common colour (its background) by
 * more than `tolerance` in a channel.
 */
export async function differingShare(page: Page, element: Locator, tolerance = 10): Promise<number> {
  const [background] = await sharesNear(page, await element.screenshot(), ["most common"], tolerance);
  return 1 - background!;
}

/**
 * With SCREENSHOTS=1, keeps a screenshot of the element (or the page's first screen) for the README
 * under docs/images/, shrunk by pngquant to a 256-colour palette when it is installed
 * (`apt-get install pngquant`): a third of the size, and the README's images stay small.
 */
export async function readmeScreenshot(target: Locator | Page, name: string): Promise<void> {
  if (process.env.SCREENSHOTS !== "1") return;
  const dir = path.join(ROOT, "docs/images");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await target.screenshot({ path: file });
  try {
    execFileSync("pngquant", ["--quality", "60-85", "--speed", "3", "--force", "--output", file, file]);
  } catch (err) {
    console.warn(`${file} kept as is (pngquant: ${(err as Error).message})`);
  }
}
