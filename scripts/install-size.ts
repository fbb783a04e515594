/**
 * What installing the library costs a user's project: the library built and packed as `npm pack` packs
 * it, the project template (templates/typescript) installed with the tarball by npm itself, and its
 * node_modules measured, in total and by its largest packages. The cloud SDKs are optional peer
 * dependencies: `--cloud aws` adds @pulumi/aws as an AWS project using `cloudLookups` or the Windows AMI
 * lookup would, `--cloud azure` adds @pulumi/azure-native, `--cloud none` adds neither, `--cloud both` both (what
 * every project installed when they were dependencies).
 *
 * Run: npm run size:install [-- --cloud aws|azure|none|both]   (needs the npm registry or a warm npm cache)
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { packTarball, stagePackage } from "../harness/installed";

const ROOT = path.resolve(__dirname, "..");
const CLOUDS: Record<string, string[]> = {
  aws: ["@pulumi/aws"],
  azure: ["@pulumi/azure-native"],
  none: [],
  // What every project installed before the SDKs became optional peers.
  both: ["@pulumi/aws", "@pulumi/azure-native"],
};

/** Bytes on disk under `dir`, as `du` counts them (hard links once). */
function diskBytes(dir: string): number {
  return Number(execFileSync("du", ["-sb", dir], { encoding: "utf8" }).split("\t")[0]);
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

/** The packages directly under node_modules (scoped ones by their full name) with their sizes. */
function packages(modules: string): Array<{ name: string; bytes: number }> {
  return fs
    .readdirSync(modules)
    .filter((e) => !e.startsWith("."))
    .flatMap((e) => (e.startsWith("@") ? fs.readdirSync(path.join(modules, e)).map((n) => `${e}/${n}`) : [e]))
    .map((name) => ({ name, bytes: diskBytes(path.join(modules, name)) }))
    .sort((a, b) => b.bytes - a.bytes);
}

function main(): number {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { cloud: { type: "string", default: "aws" } },
  });
  const sdks = CLOUDS[values.cloud];
  if (!sdks) throw new Error(`--cloud must be one of ${Object.keys(CLOUDS).join(", ")}`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "install-size-"));
  try {
    const stage = path.join(work, "stage");
    fs.mkdirSync(stage);
    const { tarball } = packTarball(stagePackage(stage), work);
    const project = path.join(work, "project");
    fs.cpSync(path.join(ROOT, "templates", "typescript"), project, { recursive: true });
    const pkg = JSON.parse(fs.readFileSync(path.join(project, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    pkg.dependencies["@openshift-topology/pulumi"] = `file:${tarball}`;
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify(pkg, null, 2));
    const started = Date.now();
    execFileSync(
      "npm",
      ["install", ...sdks, "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"],
      { cwd: project, stdio: ["ignore", "ignore", "inherit"] },
    );
    const seconds = Math.round((Date.now() - started) / 1000);
    const modules = path.join(project, "node_modules");
    const all = packages(modules);
    console.log(
      `template project with ${sdks.length ? sdks.join(", ") : "no cloud SDK"}: node_modules ${mb(diskBytes(modules))} in ${all.length} packages (npm install ${seconds}s)`,
    );
    for (const { name, bytes } of all.slice(0, 8)) console.log(`  ${mb(bytes).padStart(7)}  ${name}`);
    return 0;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

process.exit(main());
