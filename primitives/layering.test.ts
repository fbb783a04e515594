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

// A waiter's provider carries the values its functions capture: a module-level Set or Map comes out of
// Pulumi's closure serialization without its entries (a library run from source, as a component
// package's plugin runs it), and its first `has` throws in the dynamic-provider host.
describe("code the dynamic providers carry", () => {
  it("keeps no Set or Map at module level in primitives/ and provider/", () => {
    const root = path.resolve(__dirname, "..");
    const found: string[] = [];
    for (const dir of ["primitives", "provider/waiting", "provider/dynamic"]) {
      for (const file of fs.readdirSync(path.join(root, dir), { recursive: true }) as string[]) {
        if (!file.endsWith(".ts") || file.endsWith(".test.ts")) continue;
        const text = fs.readFileSync(path.join(root, dir, file), "utf8");
        for (const m of text.matchAll(
          /^(?:export )?(?:const|let) (\w+)[^=\n]*= new (?:Weak)?(?:Set|Map)\b/gm,
        ))
          found.push(`${dir}/${file}: ${m[1]}`);
      }
    }
    assert.deepEqual(found, []);
  });
});

// The package ships its tools beside the library (the command's harness and simulator, the testing
// mocks), compiled into dist/: the library must work without them, and the simulator without the rest.
describe("the package's tools stay apart from the library", () => {
  const root = path.resolve(__dirname, "..");
  /** Non-test files under `dirs`, with the folders (of the repository) their relative imports reach. */
  const reaches = (dirs: string[]) =>
    dirs.flatMap((dir) => {
      const at = path.join(root, dir);
      const files = fs.statSync(at).isFile()
        ? [at]
        : (fs.readdirSync(at, { recursive: true }) as string[]).map((f) => path.join(at, f));
      return files
        .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !/[\\/]testing\.ts$/.test(f))
        .flatMap((file) =>
          [...fs.readFileSync(file, "utf8").matchAll(/(?:from|require\()\s*"(\.[^"]+)"/g)].map((m) => ({
            file: path.relative(root, file),
            folder: path.relative(root, path.resolve(path.dirname(file), m[1])).split(path.sep)[0],
          })),
        );
    });

  it("the library imports none of harness/, simulator/, testing/ or the repository's test code", () => {
    const library = ["index.ts", "primitives", "builders", "components", "provider", "plugin"];
    const wrong = reaches(library).filter((r) => !library.includes(r.folder) && r.folder !== "index");
    assert.deepEqual(wrong, []);
  });

  it("the simulator imports neither the harness nor the testing mocks; none of them imports test/", () => {
    const found = reaches(["simulator", "harness", "testing"]).filter(
      (r) =>
        ["test", "bench", "scripts"].includes(r.folder) ||
        (r.file.startsWith("simulator") && ["harness", "testing"].includes(r.folder)),
    );
    assert.deepEqual(found, []);
  });
});
