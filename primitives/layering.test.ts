import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";

// The package's providers require these modules at runtime and Pulumi serializes them into stacks:
// they stay free of Pulumi, of other packages and of the rest of the repository.
describe("primitives/: the bottom layer", () => {
  it("imports only its own files and Node built-ins", () => {
    const files = fs.readdirSync(__dirname).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    assert.ok(files.length >= 5, files.join(", "));
    for (const file of files) {
      const text = fs.readFileSync(path.join(__dirname, file), "utf8");
      const specifiers = [...text.matchAll(/(?:from|require\()\s*"([^"]+)"/g)].map((m) => m[1]);
      for (const specifier of specifiers)
        assert.match(specifier, /^(\.\/[^/]+|node:.+)$/, `${file} imports ${specifier}`);
    }
  });
});
