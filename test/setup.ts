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

// Every test's timeout is a hang guard: stretched by how busy the machine is when the test starts.
export const mochaHooks = {
  beforeEach(this: Mocha.Context) {
    const test = this.currentTest;
    if (test) test.timeout(Math.round(test.timeout() * busyFactor()));
  },
};
