// Mutation testing of the waiting core: `npm run test:mutation` (README, "Mutation testing").
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

export default {
  packageManager: "npm",
  testRunner: "mocha",
  plugins: ["@stryker-mutator/mocha-runner", "./mutation/equivalents.mjs"],
  // .mocharc.json gives `require` and `extension`; its parallel mode is dropped by the runner. The
  // simulator-backed suite goes last: a mutant its fast suites kill then stops before it. It starts a
  // simulator for every mutant it covers, so MUTATION_SUITES=unit leaves it out while iterating.
  mochaOptions: {
    spec: [
      "provider/waiting/!(e2e).test.ts",
      ...(process.env.MUTATION_SUITES === "unit" ? [] : ["provider/waiting/e2e.test.ts"]),
    ],
  },
  mutate: ["provider/waiting/**/*.ts", "!provider/waiting/**/*.test.ts"],
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
