import * as assert from "node:assert/strict";
import { ChildProcess, execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { kubectl, kubectlMinorVersion } from "../simulator/apiserver/kubectl";

const REPO = path.resolve(__dirname, "..");

/**
 * The working tree as a new user gets it: a `git clone` with nothing beside it (no ../shared), the
 * uncommitted state of this tree laid over it, node_modules linked rather than installed (npm ci would
 * take minutes).
 */
function freshClone(root: string): string {
  const clone = path.join(root, "repo");
  execFileSync("git", ["clone", "--quiet", REPO, clone]);
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: REPO,
    encoding: "utf8",
  });
  for (const file of files.split("\0").filter((f) => f !== "")) {
    const target = path.join(clone, file);
    if (!fs.existsSync(path.join(REPO, file))) {
      fs.rmSync(target, { force: true });
      continue;
    }
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(path.join(REPO, file), target);
  }
  fs.symlinkSync(path.join(REPO, "node_modules"), path.join(clone, "node_modules"), "dir");
  return clone;
}

/** The environment of a user who set nothing: no CI, no OPENSHIFT_* directories, no kubeconfig. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => k !== "CI" && k !== "KUBECONFIG" && k !== "TEST_CPU_LOG" && !k.startsWith("OPENSHIFT_"),
    ),
  );
  return { ...env, ...extra };
}

function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/**
 * What a missing reference skips on a plain clone: the suites named (once each, whole or in part), each
 * with what is missing and how to get it.
 */
const SKIPPED = [
  ["CRD schemas", "npm run crds:export"],
  ["machine configuration manifests against the upstream CRDs", "npm run crds:export"],
  ["every rendered manifest against the upstream CRDs", "npm run crds:export"],
  ["render against the upstream CRDs", "npm run crds:export"],
  ["crds:export", "npm run crds:export"],
  ["API server with kubectl", "OPENSHIFT_SEEDS_DIR"],
  ["MachineSet builders", "OPENSHIFT_SEEDS_DIR"],
  ["startSimulator driven by kubectl", "OPENSHIFT_SEEDS_DIR"],
  ["examples/aws-infra-windows adopting what seed 001 made by hand", "OPENSHIFT_SEEDS_DIR"],
  ["a Windows pool adopting what seed 002 made by hand", "OPENSHIFT_SEEDS_DIR"],
  ["the component package's schema", "PULUMI_METASCHEMA_DIR"],
];

describe("a fresh clone without ../shared", function () {
  this.timeout(240_000);
  let root: string;
  let clone: string;
  /**
   * The repository's mocha configuration, with only the suites that read reference material and two more;
   * run by mocha itself, since `npm run test:unit` names every suite on its command line.
   */
  let config: string;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "fresh-clone-"));
    clone = freshClone(root);
    const mocharc = JSON.parse(fs.readFileSync(path.join(clone, ".mocharc.json"), "utf8"));
    const readers = execFileSync(
      "git",
      // Every suite that reaches the reference material: through the skip helper, or through the
      // helpers that read it (which must then be behind requireReference). Each runs here a second
      // time: a whole-life suite that reads a seed for one test doubles its cost, so such a test goes
      // in a suite of its own that skips whole without the seeds (harness/adoption.test.ts).
      ["grep", "-lE", '(test|\\.)/(reference|crd-schemas|seeds|provider-spec-schema)"', "--", "*.test.ts"],
      {
        cwd: clone,
        encoding: "utf8",
      },
    )
      .split("\n")
      .filter((f) => f !== "" && f !== "test/fresh-clone.test.ts");
    config = path.join(root, "mocharc.json");
    // The examples' suite comes last as in the full run, its Pulumi mocks replacing those the harness
    // suites leave with promises in flight, which Pulumi's exit check would otherwise turn into exit code 1.
    // One process, not mocha's workers: the suites' modules are transpiled and loaded once (some 10 s of
    // CPU less), while the full run beside it keeps both cores busy.
    fs.writeFileSync(
      config,
      JSON.stringify({ ...mocharc, parallel: false, spec: [...readers, "test/examples.test.ts"] }),
    );
  });

  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it("npm run sim serves unvalidated, says so in one line, and kubectl get nodes works", async function () {
    if (kubectlMinorVersion() === undefined) {
      console.log("    kubectl is not installed: skipped");
      this.skip();
    }
    const sim: ChildProcess = spawn("npm", ["run", "sim", "--", "--port", "0"], {
      cwd: clone,
      env: userEnv(),
      detached: true,
    });
    let output = "";
    sim.stdout!.on("data", (d: Buffer) => (output += d.toString()));
    sim.stderr!.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<void>((resolve) => sim.on("exit", () => resolve()));
    try {
      const kubeconfig = path.join(clone, ".sim", "kubeconfig");
      let nodes = "";
      for (let attempt = 0; attempt < 600 && !nodes; attempt++) {
        assert.equal(sim.exitCode, null, `npm run sim exited:\n${output}`);
        if (output.includes("Ctrl-C stops it.")) {
          const result = await kubectl(kubeconfig, ["get", "nodes"]);
          assert.equal(result.code, 0, result.stderr);
          nodes = result.stdout;
        } else {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      assert.match(nodes, /ip-10-0-\S+\s+Ready\s+control-plane,master/);
      const crdLines = output.split("\n").filter((l) => /CRD/.test(l));
      assert.deepEqual(crdLines, [
        "CRDs: none, custom resources served unvalidated; validate with --crds DIR or OPENSHIFT_CRDS_DIR, e.g. after `npm run crds:export -- --out DIR` against your cluster",
      ]);
    } finally {
      // npm runs the simulator in a shell: the whole process group is stopped.
      if (sim.exitCode === null && sim.signalCode === null) process.kill(-sim.pid!, "SIGTERM");
      await exited;
    }
  });

  it("the tests pass, naming each suite skipped for want of the seeds or the CRDs", async () => {
    const { code, output } = await run("npx", ["mocha", "--config", config], clone, userEnv());
    assert.equal(code, 0, output);
    assert.match(output, /\d+ passing/);
    assert.doesNotMatch(output, /failing/);
    const skipped = output.split("\n").filter((l) => /^\s+skipped "/.test(l));
    assert.deepEqual(skipped, [...new Set(skipped)], "each skipped suite is named once");
    for (const [suite, how] of SKIPPED) {
      const line = skipped.find((l) => l.includes(`skipped "${suite}"`));
      assert.ok(line, `"${suite}" is named as skipped:\n${output}`);
      assert.ok(line.includes(how), line);
    }
  });

  it("under CI=true the missing directories stop the run before any test, saying what is missing", async () => {
    const { code, output } = await run("npx", ["mocha", "--config", config], clone, userEnv({ CI: "true" }));
    assert.notEqual(code, 0);
    assert.match(output, /CI=true: the seed documents .* are missing \(no .*\): set OPENSHIFT_SEEDS_DIR/);
    assert.match(
      output,
      /CI=true: the upstream CRDs are missing \(no .*\): set OPENSHIFT_CRDS_DIR .*npm run crds:export/,
    );
    assert.match(
      output,
      /CI=true: Pulumi's package metaschema are missing \(no .*\): set PULUMI_METASCHEMA_DIR/,
    );
    assert.doesNotMatch(output, /passing|pending/);
  });
});
