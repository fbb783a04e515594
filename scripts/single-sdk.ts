/**
 * Proof that a consumer project keeps one copy of @pulumi/pulumi, whatever compatible version it has:
 * the library is packed (`npm pack`), and for each SDK version a consumer project depending on the
 * tarball and on that version is resolved by npm itself. Two copies would mean two runtimes in one
 * program, whose Outputs and resources do not recognise each other.
 *
 * The tree is resolved with `npm install --package-lock-only` (npm's own resolution, written to the
 * lockfile: exactly the tree `npm ci` would lay out) preferring the npm cache; `--full` also installs it
 * and asks `npm ls`. A version below the peer range must be refused by npm (ERESOLVE), not installed
 * twice. Packing skips the build (`--ignore-scripts`): resolution reads package.json only.
 *
 * Run: npm run check:single-sdk [-- --full] [-- 3.142.0 3.200.0 ...]
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { packTarball } from "../harness/installed";

const ROOT = path.resolve(__dirname, "..");
const SDK = "@pulumi/pulumi";
const NPM_FLAGS = ["--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"];

interface Outcome {
  version: string;
  ok: boolean;
  /** Where npm placed each copy of the SDK, with its version. */
  copies: string[];
  seconds: number;
  error?: string;
}

function npm(args: string[], cwd: string): { status: number | null; stderr: string; stdout: string } {
  const result = spawnSync("npm", [...args, ...NPM_FLAGS], { cwd, encoding: "utf8" });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

function sdkCopies(lockfile: string): string[] {
  const lock = JSON.parse(fs.readFileSync(lockfile, "utf8")) as {
    packages: Record<string, { version?: string }>;
  };
  return Object.entries(lock.packages)
    .filter(([location]) => location === `node_modules/${SDK}` || location.endsWith(`/node_modules/${SDK}`))
    .map(([location, entry]) => `${location}@${entry.version}`);
}

function consumer(dir: string, tarball: string, version: string, full: boolean): Outcome {
  fs.mkdirSync(dir, { recursive: true });
  const manifest = {
    name: "consumer",
    private: true,
    dependencies: { "@openshift-topology/pulumi": `file:${tarball}`, [SDK]: version },
  };
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(manifest, null, 2));
  const started = Date.now();
  const resolved = npm(["install", "--package-lock-only"], dir);
  const seconds = () => Math.round((Date.now() - started) / 100) / 10;
  if (resolved.status !== 0) {
    const code = /npm error code (\S+)/.exec(resolved.stderr)?.[1] ?? `exit ${resolved.status}`;
    return { version, ok: false, copies: [], seconds: seconds(), error: code };
  }
  const copies = sdkCopies(path.join(dir, "package-lock.json"));
  if (full) {
    const installed = npm(["ci"], dir);
    if (installed.status !== 0) {
      return { version, ok: false, copies, seconds: seconds(), error: "npm ci failed" };
    }
    const listed = spawnSync("npm", ["ls", SDK, "--all", "--parseable"], { cwd: dir, encoding: "utf8" });
    const onDisk = listed.stdout.split("\n").filter((l) => l.endsWith(path.join("node_modules", SDK)));
    if (new Set(onDisk).size !== copies.length) {
      return { version, ok: false, copies, seconds: seconds(), error: `npm ls found ${onDisk.length}` };
    }
  }
  return { version, ok: copies.length === 1, copies, seconds: seconds() };
}

function main(): number {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: { full: { type: "boolean", default: false } },
  });
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    peerDependencies: Record<string, string>;
  };
  const range = pkg.peerDependencies[SDK];
  const floor = range.replace(/^\^/, "");
  // The floor, a release between it and the pin, and one below the range that npm must refuse.
  const versions = positionals.length > 0 ? positionals : [floor, "3.200.0"];
  const below = "3.100.0";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "single-sdk-"));
  try {
    const { tarball } = packTarball(ROOT, dir);
    console.log(`peer range ${range}; consumer projects with ${SDK}:`);
    let ok = true;
    for (const version of versions) {
      const outcome = consumer(path.join(dir, version), tarball, version, values.full);
      ok &&= outcome.ok;
      console.log(
        `  ${version}: ${outcome.ok ? "one copy" : `FAILED (${outcome.error ?? "copies"})`} ` +
          `${outcome.copies.join(", ")} in ${outcome.seconds}s`,
      );
    }
    const refused = consumer(path.join(dir, below), tarball, below, false);
    const expected = !refused.ok && refused.error === "ERESOLVE";
    ok &&= expected;
    console.log(
      `  ${below} (below the range): ${expected ? "refused by npm (ERESOLVE)" : `NOT refused: ${refused.error ?? refused.copies.join(", ")}`} in ${refused.seconds}s`,
    );
    return ok ? 0 : 1;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

process.exit(main());
