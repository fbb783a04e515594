import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * The shape of package.json that keeps one @pulumi/pulumi in a consumer's project (two copies mean two
 * runtimes whose Outputs do not recognise each other): the SDK is a peer dependency with a caret range,
 * pinned exactly for development only. `npm run check:single-sdk` proves it with npm's own resolution.
 */

const ROOT = path.resolve(__dirname, "..");
const SDK = "@pulumi/pulumi";
/** The first release with `pulumi.InputPropertyError`, which every component's input errors use. */
const INPUT_PROPERTY_ERROR_SINCE = "3.136.0";

interface Manifest {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const read = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")) as Manifest;

function parse(version: string): number[] {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  assert.ok(match, `a plain version: ${version}`);
  return match.slice(1).map(Number);
}

function atLeast(version: string, floor: string): boolean {
  const [a, b] = [parse(version), parse(floor)];
  const i = a.findIndex((n, k) => n !== b[k]);
  return i === -1 || a[i] > b[i];
}

/** The lowest version of a caret range, checked to be one. */
function caretFloor(range: string): string {
  assert.match(range, /^\^\d+\.\d+\.\d+$/, `a caret range: ${range}`);
  return range.slice(1);
}

describe("package.json: one @pulumi/pulumi in a consumer's project", () => {
  const pkg = read(path.join(ROOT, "package.json"));
  const range = pkg.peerDependencies?.[SDK] ?? "";

  it("has the SDK as a peer dependency with a 3.x caret range, never as a dependency", () => {
    assert.equal(pkg.dependencies?.[SDK], undefined);
    assert.equal(parse(caretFloor(range))[0], 3);
  });

  it("pins the SDK exactly for development, inside the peer range", () => {
    const pin = pkg.devDependencies?.[SDK] ?? "";
    assert.ok(atLeast(pin, caretFloor(range)) && parse(pin)[0] === 3, `${pin} within ${range}`);
  });

  it("starts the range where the library's APIs and its @pulumi dependencies need it", () => {
    const floor = caretFloor(range);
    assert.ok(atLeast(floor, INPUT_PROPERTY_ERROR_SINCE), `InputPropertyError: ${floor}`);
    // Below their own floor, npm would nest a second SDK under @pulumi/kubernetes, or under aws or
    // azure-native (optional peers, installed by the projects that use that cloud).
    const needs = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies })
      .filter((name) => name.startsWith("@pulumi/") && name !== SDK)
      .map((name) => {
        const dependency = read(path.join(ROOT, "node_modules", name, "package.json"));
        const wanted = dependency.dependencies?.[SDK] ?? dependency.peerDependencies?.[SDK];
        assert.ok(wanted, `${name} names the SDK it needs`);
        return { name, floor: caretFloor(wanted) };
      });
    assert.ok(needs.length >= 3, needs.map((n) => n.name).join(", "));
    for (const need of needs) assert.ok(atLeast(floor, need.floor), `${need.name} needs ^${need.floor}`);
  });

  it("has a lockfile that agrees", () => {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, Manifest>;
    };
    const root = lock.packages[""];
    assert.equal(root.peerDependencies?.[SDK], range);
    assert.equal(root.devDependencies?.[SDK], pkg.devDependencies?.[SDK]);
    assert.equal(root.dependencies?.[SDK], undefined);
  });
});
