// Mutation testing of the waiting core and of the code that decides what a preview says: `npm run
// test:mutation` (docs/contributing.md, "Mutation testing").
import * as os from "node:os";
import * as path from "node:path";
import process from "node:process";
import "./mutation/mocha12.mjs";

const here = import.meta.dirname;
// Every Stryker process loads the mocha runner: the test runners it forks get the fix too.
const mocha12 = path.join(here, "mutation", "mocha12.mjs");
process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, `--import ${mocha12}`].filter(Boolean).join(" ");

// Stryker runs the suites in a copy of the worktree, from where ../shared is not where the tests look.
process.env.OPENSHIFT_SEEDS_DIR ||= path.resolve(here, "../shared/seeds");
process.env.OPENSHIFT_CRDS_DIR ||= path.resolve(here, "../shared/crds");

const WAITING = ["provider/waiting/**/*.ts", "!provider/waiting/**/*.test.ts"];

/**
 * What a run mutates and the suites it runs against each mutant, named by MUTATION_SUITES (several
 * joined by commas; the waiting core with every suite of it when unset). A file's own suites are
 * enough to kill its mutants and take seconds where the others take minutes, so each part of the
 * preview is its own scope.
 */
const SCOPES = {
  // The simulator-backed suite goes last: a mutant its fast suites kill then stops before it. It
  // starts a simulator for every mutant it covers, so `unit` leaves it out while iterating.
  waiting: {
    mutate: WAITING,
    spec: ["provider/waiting/!(e2e).test.ts", "provider/waiting/e2e.test.ts"],
  },
  unit: { mutate: WAITING, spec: ["provider/waiting/!(e2e).test.ts"] },
  // A pool's render impact, its summary line, ROLLOUT.md and the deadlines derived from them.
  "rollout-impact": {
    mutate: ["builders/rollout-impact/*.ts", "!builders/rollout-impact/*.test.ts"],
    spec: ["builders/rollout-impact/*.test.ts"],
  },
  // The machines a MachineSet's template change replaces or leaves on their old spec.
  replacement: {
    mutate: ["builders/machineset/replacement.ts"],
    spec: ["builders/machineset/replacement.test.ts"],
  },
  // The render impact and machine changes read from the cluster: its reads faked, then through Pulumi's
  // mocks and a simulator.
  "cluster-impact": {
    mutate: ["components/cluster/rollout-impact.ts"],
    spec: ["components/cluster/rollout-impact-reads.test.ts", "components/cluster/rollout-impact.test.ts"],
  },
  // What an adopting component imports and what it says it creates: its reads faked, then through
  // the components that adopt (Pulumi's mocks, a simulator).
  adoption: {
    mutate: ["components/cluster/adoption.ts"],
    spec: [
      "components/cluster/adoption.test.ts",
      "components/machine-pool/scaling.test.ts",
      "components/windows-node-pool/windows-node-pool.test.ts",
      "components/cluster/rollout-impact.test.ts",
    ],
  },
  // What a pool's running nodes get and lose of its labels and taints, and how a preview says it.
  "node-metadata": {
    mutate: ["builders/machineset/node-metadata.ts", "provider/waiting/node-metadata.ts"],
    spec: ["builders/machineset/node-metadata.test.ts", "provider/waiting/node-metadata.test.ts"],
  },
  // The pods and PodDisruptionBudgets a rollout held by a drain names.
  drain: { mutate: ["provider/waiting/drain.ts"], spec: ["provider/waiting/drain.test.ts"] },
};
SCOPES.preview = ["rollout-impact", "replacement", "cluster-impact", "adoption", "node-metadata", "drain"];

const named = (process.env.MUTATION_SUITES || "waiting").split(",").flatMap((name) => {
  const scope = SCOPES[name.trim()];
  if (!scope) throw new Error(`MUTATION_SUITES: no scope ${name}; one of ${Object.keys(SCOPES).join(", ")}`);
  return Array.isArray(scope) ? scope.map((n) => SCOPES[n]) : [scope];
});
const union = (key) => [...new Set(named.flatMap((scope) => scope[key]))];

export default {
  packageManager: "npm",
  testRunner: "mocha",
  plugins: ["@stryker-mutator/mocha-runner", "./mutation/equivalents.mjs"],
  // .mocharc.json gives `require` and `extension`; its parallel mode is dropped by the runner.
  mochaOptions: { spec: union("spec") },
  mutate: union("mutate"),
  coverageAnalysis: "perTest",
  ignorers: ["equivalents"],
  // Two cores shared by the whole team: one test process, run under `nice`.
  concurrency: 1,
  incremental: true,
  incrementalFile: ".stryker/incremental.json",
  // Outside the worktree, where the linters and duplicates do not read the sandbox's copies.
  tempDirName: path.join(os.tmpdir(), `stryker-${path.basename(here)}`),
  reporters: ["clear-text", "progress-append-only"],
  clearTextReporter: { allowColor: false, reportMutants: false, reportTests: false },
  thresholds: { high: 90, low: 80, break: null },
};
