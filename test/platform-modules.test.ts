import * as assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(__dirname, "..");

/** The platform modules and the tables that list them: the only files that may name a cloud. */
const PLATFORM_FILES = [
  /^builders\/machineset\/(aws|azure)(-options|-regions)?\.ts$/,
  /^builders\/machineset\/platforms\.ts$/,
  /^components\/platforms\//,
];

/** A cloud's name as a string: a comparison, a lookup or a branch on it. */
const NAMES_A_PLATFORM = /["'](aws|azure|AWS|Azure)["']/;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("platforms are modules", () => {
  it("no library file outside the platform modules and their tables names a cloud", () => {
    const offenders = ["builders", "components"]
      .flatMap(sources)
      .filter((path) => !PLATFORM_FILES.some((allowed) => allowed.test(path)))
      .flatMap((path) =>
        readFileSync(join(ROOT, path), "utf8")
          .split("\n")
          .map((line, i) => ({ line, at: `${relative(ROOT, join(ROOT, path))}:${i + 1}` }))
          .filter(({ line }) => NAMES_A_PLATFORM.test(line))
          .map(({ line, at }) => `${at}: ${line.trim()}`),
      );
    assert.deepEqual(offenders, []);
  });
});
