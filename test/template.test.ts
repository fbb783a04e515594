/**
 * The project template a user copies (templates/typescript), checked as the user's copy would be: the
 * library built and packed as `npm pack` packs it, the tarball unpacked into the project's
 * node_modules beside the other packages it needs, and `tsc` run on the project with its own tsconfig.
 * Neither cloud SDK is there: a project that looks nothing up in a cloud installs none. The project
 * then goes through a platform repository's workflow with the package alone, in order: the package's
 * command from node_modules/.bin starts the simulator, captures the fixtures the program reads from it
 * and renders ROLLOUT.md for a change; the documented unit tests of the stack (docs/testing.md) run
 * with the package's mocks against those fixtures.
 */
import * as assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as ts from "typescript";
import { parse } from "yaml";
import { SIMULATOR_PEERS as COMMAND_PEERS } from "../harness/cli";
import {
  commandModules,
  linkDependencies,
  PACKAGE_NAME,
  packTarball,
  stagePackage,
} from "../harness/installed";

const ROOT = path.resolve(__dirname, "..");
const TEMPLATE = path.join(ROOT, "templates", "typescript");
const CLOUD_SDKS = ["@pulumi/aws", "@pulumi/azure-native"];
/** What only the simulator needs: optional peers (the cloud SDKs apart), installed when it is wanted. */
const SIMULATOR_PEERS = Object.entries(
  (
    JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    }
  ).peerDependenciesMeta,
)
  .filter(([name, meta]) => meta.optional && !name.startsWith("@pulumi/"))
  .map(([name]) => name);

/** The unit tests docs/testing.md shows, as a user's project holds them: its code block that names the file. */
function documentedTest(): { file: string; text: string } {
  const doc = fs.readFileSync(path.join(ROOT, "docs", "testing.md"), "utf8");
  const block = [...doc.matchAll(/```ts\n(\/\/ (test\/[\w.-]+\.ts)\n[\s\S]*?)```/g)];
  assert.equal(block.length, 1, "docs/testing.md shows one test file");
  return { file: block[0][2], text: block[0][1] };
}

/** Mistakes a user's editor must flag from the library's declarations alone. */
const MISTAKES = `import { InfraNodePool, OperatorSubscription } from "@openshift-topology/pulumi";
new OperatorSubscription("op", {
  packageName: "local-storage-operator",
  channel: "stable",
  // @ts-expect-error: one of "OwnNamespace" | "AllNamespaces"
  targetNamespaces: "OwnNamespaces",
});
new InfraNodePool("infra", {
  zones: ["us-east-2a"],
  // @ts-expect-error: a number
  replicas: "3",
});
`;

describe("The project template, type-checked against the packed library", function () {
  // The full build with declarations takes some 10 s of CPU, 40 s on a busy machine: once per suite.
  this.timeout(120_000);
  let work: string;
  let project: string;
  let packed: string[];
  let installed: string;

  before(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "template-"));
    const stage = stagePackage(fs.mkdirSync(path.join(work, "stage"), { recursive: true })!);
    const { tarball, files } = packTarball(stage, work);
    packed = files;
    project = path.join(work, "project");
    installed = path.join(project, "node_modules", ...PACKAGE_NAME.split("/"));
    fs.mkdirSync(installed, { recursive: true });
    execFileSync("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]);
    linkDependencies(path.join(project, "node_modules"), [...CLOUD_SDKS, ...SIMULATOR_PEERS]);
    // As npm links a package's bin at install: node_modules/.bin/<name>, its target made executable.
    const { bin } = JSON.parse(fs.readFileSync(path.join(installed, "package.json"), "utf8")) as {
      bin: Record<string, string>;
    };
    fs.mkdirSync(path.join(project, "node_modules", ".bin"));
    for (const [name, target] of Object.entries(bin)) {
      fs.chmodSync(path.join(installed, target), 0o755);
      fs.symlinkSync(
        path.relative(path.join(project, "node_modules", ".bin"), path.join(installed, target)),
        path.join(project, "node_modules", ".bin", name),
      );
    }
    for (const file of fs.readdirSync(TEMPLATE))
      fs.copyFileSync(path.join(TEMPLATE, file), path.join(project, file));
    const test = documentedTest();
    fs.mkdirSync(path.join(project, "test"));
    fs.writeFileSync(path.join(project, test.file), test.text);
    // One tsc run checks all three: an expected error that does not happen is itself an error (TS2578).
    fs.writeFileSync(path.join(project, "mistakes.ts"), MISTAKES);
    fs.writeFileSync(
      path.join(project, "tsconfig.mistakes.json"),
      JSON.stringify({
        extends: "./tsconfig.json",
        compilerOptions: { types: ["node", "mocha"] },
        files: ["index.ts", "mistakes.ts", test.file],
      }),
    );
  });

  function typeCheck(tsc: string): void {
    const result = spawnSync(process.execPath, [tsc, "-p", path.join(project, "tsconfig.mistakes.json")], {
      encoding: "utf8",
    });
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
  }

  after(() => work && fs.rmSync(work, { recursive: true, force: true }));

  it("packs the compiled library with its declarations, the component package, the testing mocks, the command, README, LICENSE and CHANGELOG, and no tests", () => {
    for (const file of [
      "package.json",
      "README.md",
      "LICENSE",
      "CHANGELOG.md",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/plugin/index.js",
      "dist/plugin/schema.json",
      "dist/plugin/PulumiPlugin.yaml",
      "dist/testing/index.js",
      "dist/testing/index.d.ts",
      "dist/harness/command.js",
    ])
      assert.ok(packed.includes(file), file);
    assert.deepEqual(
      packed.filter((f) => /\.test\.|^dist\/(test|bench|scripts|examples|templates)\//.test(f)),
      [],
    );
    // Of the tools, what the command loads: not the demo, the benchmarks' helpers or test programs.
    assert.deepEqual(
      packed.filter((f) => /^dist\/(harness|simulator)\/.*\.js$/.test(f)),
      commandModules().map((f) => `dist/${f.replace(/\.ts$/, ".js")}`),
    );
  });

  it("type-checks with the TypeScript it installs, without either cloud SDK, and its mistakes are type errors", () => {
    for (const sdk of CLOUD_SDKS) assert.ok(!fs.existsSync(path.join(project, "node_modules", sdk)), sdk);
    const installed = JSON.parse(
      fs.readFileSync(path.join(project, "node_modules", "typescript", "package.json"), "utf8"),
    ) as { version: string };
    const template = JSON.parse(fs.readFileSync(path.join(TEMPLATE, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    const minor = template.devDependencies.typescript.replace(/^~(\d+\.\d+).*/, "$1");
    assert.ok(installed.version.startsWith(`${minor}.`), `${installed.version} is not ${minor}`);
    typeCheck(path.join(project, "node_modules", "typescript", "bin", "tsc"));
  });

  it("type-checks with TypeScript 6 as well, the same tsconfig a user copies", () => {
    // TypeScript 6 turns options 5.9 accepts into errors (esModuleInterop false, moduleResolution node10, ...).
    const typescript6 = path.join(ROOT, "test", "typescript6", "node_modules", "typescript");
    const { version } = JSON.parse(fs.readFileSync(path.join(typescript6, "package.json"), "utf8")) as {
      version: string;
    };
    assert.match(version, /^6\./);
    typeCheck(path.join(typescript6, "bin", "tsc"));
  });

  it("the package's command: sim (once its optional peers are installed), fixtures capture from it, render --baseline to ROLLOUT.md", async () => {
    const command = path.join(project, "node_modules", ".bin", "openshift-topology");
    // The project's own cluster: the simulator's kubeconfig in .sim/ of the working directory.
    const { KUBECONFIG: _ambient, ...env } = process.env;
    const run = (args: string[]) => spawnSync(command, args, { cwd: project, env, encoding: "utf8" });

    const withoutPeers = run(["sim"]);
    assert.equal(withoutPeers.status, 1);
    assert.equal(
      withoutPeers.stderr.trim(),
      `openshift-topology sim needs ${SIMULATOR_PEERS.join(", ")}, optional peer dependencies that a program does not need: npm install --save-dev ${SIMULATOR_PEERS.join(" ")}`,
    );
    // What the command asks for is what package.json declares optional.
    assert.deepEqual(SIMULATOR_PEERS, [...COMMAND_PEERS].sort());
    for (const peer of SIMULATOR_PEERS) {
      fs.mkdirSync(path.dirname(path.join(project, "node_modules", peer)), { recursive: true });
      fs.symlinkSync(path.join(ROOT, "node_modules", peer), path.join(project, "node_modules", peer));
    }

    const sim = spawn(command, ["sim", "--port", "0"], { cwd: project, env });
    const exited = new Promise<number | null>((resolve) => sim.on("exit", resolve));
    try {
      let printed = "";
      await new Promise<void>((resolve, reject) => {
        sim.stdout.on("data", (chunk: Buffer) => {
          printed += chunk.toString();
          if (printed.includes("Ctrl-C stops it.")) resolve();
        });
        sim.on("exit", (code) => reject(new Error(`sim exited ${code}: ${printed}`)));
      });
      assert.match(printed, /CRDs: none, .*after `openshift-topology crds export --out DIR`/);

      const capture = run(["fixtures", "capture", "."]);
      assert.equal(capture.status, 0, capture.stderr);
      assert.match(
        capture.stdout,
        /^6 objects the program reads, from the cluster of .*\.sim\/kubeconfig \(openshift-topology sim\), written to fixtures\.yaml$/m,
      );
    } finally {
      sim.kill("SIGINT");
    }
    assert.equal(await exited, 0);
    const fixtures = parse(fs.readFileSync(path.join(project, "fixtures.yaml"), "utf8")) as {
      objects: Array<{ kind: string; metadata: { name: string } }>;
    };
    assert.deepEqual(
      fixtures.objects.map((o) => `${o.kind} ${o.metadata.name}`),
      [
        "Infrastructure cluster",
        "MachineSet cluster-zbwlg-cbgq7-worker-us-east-2a",
        "MachineSet cluster-zbwlg-cbgq7-worker-us-east-2b",
        "MachineSet cluster-zbwlg-cbgq7-worker-us-east-2c",
        "MachineConfiguration cluster",
        "PackageManifest local-storage-operator",
      ],
    );

    // A pull request's review: the main branch rendered, then the change, with what it does to the nodes.
    const base = run(["render", ".", "--out", "base"]);
    assert.equal(base.status, 0, base.stderr);
    const change = run(["render", ".", "--baseline", "base", "--config", "maxPods=300"]);
    assert.equal(change.status, 0, change.stderr);
    const report = fs.readFileSync(path.join(project, "out", "project", "ROLLOUT.md"), "utf8");
    assert.match(
      report,
      /^\| infra \| 3 \| yes \| drain and reboot \| 1 \| 3 \| about 12 min \| none \| none \| no \| file \/etc\/kubernetes\/kubelet\.conf of 99-infra-generated-kubelet \|$/m,
    );
  });

  it("runs the documented unit tests of the stack with the package's mocks: they pass and the process exits 0", () => {
    const mocha = path.join(project, "node_modules", "mocha", "bin", "mocha.js");
    const test = documentedTest().file;
    // Type-checked above with the project's tsconfig; transpiled here, as ts-node does after its check.
    const run = spawnSync(process.execPath, [mocha, "-r", "ts-node/register/transpile-only", test], {
      cwd: project,
      encoding: "utf8",
    });
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
    assert.match(run.stdout, /\b3 passing\b/, run.stdout);
    assert.doesNotMatch(`${run.stdout}${run.stderr}`, /promises were still active/);
  });

  it("documents every argument of every exported component for the editor's hover, in a user's words", () => {
    const declarations = packed.filter((f) => f.endsWith(".d.ts")).map((f) => path.join(installed, f));
    // The package's own declarations only: the SDKs' types do not hold the documentation.
    const program = ts.createProgram(declarations, { noResolve: true, skipLibCheck: true, noEmit: true });
    const checker = program.getTypeChecker();
    const index = checker.getSymbolAtLocation(
      program.getSourceFile(path.join(installed, "dist", "index.d.ts"))!,
    )!;
    const undocumented: string[] = [];
    let args = 0;
    for (const exported of checker.getExportsOfModule(index)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (!symbol.name.endsWith("Args")) continue;
      args++;
      for (const property of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))) {
        if (!ts.displayPartsToString(property.getDocumentationComment(checker)).trim())
          undocumented.push(`${symbol.name}.${property.name}`);
      }
    }
    assert.ok(args >= 8, `${args} Args types exported`);
    assert.deepEqual(undocumented, []);
    const internal = declarations.flatMap((file) =>
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => /\bseeds? \d{3}|DOMAIN\.md/.test(line))
        .map((line) => `${path.relative(installed, file)}: ${line.trim()}`),
    );
    assert.deepEqual(internal, []);
  });
});
