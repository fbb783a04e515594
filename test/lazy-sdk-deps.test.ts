import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "..");

/** What a process with the preload (as every process the tests start) sees of @npmcli/arborist. */
const PROBE = `
const loaded = () => Object.keys(require.cache).some((f) => f.includes("@npmcli/arborist"));
const pulumi = require("@pulumi/pulumi");
const atImport = loaded();
pulumi.runtime.computeCodePaths().then((paths) => {
  console.log(JSON.stringify({ atImport, paths: paths.size, afterUse: loaded() }));
});
`;

describe("the tests' SDK preload (test/lazy-sdk-deps.cjs)", () => {
  it("leaves @npmcli/arborist unloaded at the SDK's import, and computeCodePaths still uses it", () => {
    const out = execFileSync(
      process.execPath,
      ["--require", path.join(__dirname, "lazy-sdk-deps.cjs"), "-e", PROBE],
      { cwd: ROOT, encoding: "utf8" },
    );
    const probe = JSON.parse(out) as { atImport: boolean; paths: number; afterUse: boolean };
    assert.equal(probe.atImport, false);
    assert.equal(probe.afterUse, true);
    // The repository's own dependencies, found through Arborist's tree.
    assert.ok(probe.paths > 10, `code paths found: ${probe.paths}`);
  });
});
