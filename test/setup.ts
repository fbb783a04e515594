import * as fs from "node:fs";
import * as path from "node:path";
import { busyFactor } from "./busy";
import { CRDS, isCI, missing, PULUMI_METASCHEMA, SEEDS } from "./reference";

// Tests never reach a real cluster: components that read the ambient kubeconfig get a fake one.
process.env.KUBECONFIG = path.join(__dirname, "fixtures", "kubeconfig.yaml");

// The Node processes the tests start (programs, plugin hosts, mocha's workers) load the SDK's
// computeCodePaths dependencies only when used: see lazy-sdk-deps.cjs.
const LAZY_SDK_DEPS = path.join(__dirname, "lazy-sdk-deps.cjs");
if (!process.env.NODE_OPTIONS?.includes(path.basename(LAZY_SDK_DEPS))) {
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, `--require "${LAZY_SDK_DEPS}"`]
    .filter(Boolean)
    .join(" ");
}

// Elsewhere the suites needing them are skipped; CI must run them, so it stops here instead.
if (isCI()) {
  const reasons = [SEEDS, CRDS, PULUMI_METASCHEMA].map(missing).filter((r) => r !== undefined);
  if (reasons.length > 0) {
    for (const reason of reasons) console.error(`CI=true: ${reason}`);
    process.exit(1);
  }
}

/**
 * CPU seconds of this process and of the children it waited for (programs, plugin hosts, kubectl):
 * /proc/self/stat's utime, stime, cutime and cstime, in clock ticks of 1/100 s.
 */
function cpuSeconds(): number {
  const fields = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) / 100;
}

// With TEST_CPU_LOG=<file>, each suite file's CPU (children included), wall time and worker are appended to it,
// from the end of the file before it in the same process (so its loading counts): what to cut when npm
// test grows, whatever else the machine runs (mocha's parallel mode runs the root afterAll per file).
const CPU_LOG = process.env.TEST_CPU_LOG;
let fileStarted = CPU_LOG ? { cpu: cpuSeconds(), wall: Date.now() } : undefined;

// Every test's timeout is a hang guard: stretched by how busy the machine is when the test starts.
export const mochaHooks = {
  beforeEach(this: Mocha.Context) {
    const test = this.currentTest;
    if (test) test.timeout(Math.round(test.timeout() * busyFactor()));
  },
  // A suite's hooks are hang guards too (a package build, a simulator start): stretched when its file
  // starts (mocha's parallel mode runs the root beforeAll per file). They timed out under two npm tests.
  beforeAll(this: Mocha.Context) {
    const factor = busyFactor();
    if (factor === 1) return;
    const stretch = (suite: Mocha.Suite): void => {
      const hooks = suite as unknown as Record<
        "_beforeAll" | "_beforeEach" | "_afterEach" | "_afterAll",
        Mocha.Hook[]
      >;
      for (const hook of [
        ...hooks._beforeAll,
        ...hooks._beforeEach,
        ...hooks._afterEach,
        ...hooks._afterAll,
      ]) {
        if (hook.timeout() > 0) hook.timeout(Math.round(hook.timeout() * factor));
      }
      suite.suites.forEach(stretch);
    };
    this.test?.parent?.suites.forEach(stretch);
  },
  afterAll(this: Mocha.Context) {
    if (!CPU_LOG || !fileStarted) return;
    const root = this.test?.parent;
    const file = root?.suites.find((s) => s.file)?.file ?? root?.file ?? "?";
    const cpu = (cpuSeconds() - fileStarted.cpu).toFixed(1);
    const wall = ((Date.now() - fileStarted.wall) / 1000).toFixed(1);
    const relative = path.relative(path.join(__dirname, ".."), file);
    fs.appendFileSync(CPU_LOG, `${cpu}\t${wall}\t${relative}\t${process.pid}\n`);
    fileStarted = { cpu: cpuSeconds(), wall: Date.now() };
  },
};
