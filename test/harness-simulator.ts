import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulator, Simulator, SimulatorOptions } from "../simulator/simulator";

export interface SuiteSimulator {
  readonly sim: Simulator;
  /** A scratch directory for state files, removed after the suite. */
  readonly dir: string;
}

/**
 * A simulator for the end-to-end tests of one `describe`: started before its tests with progress lines
 * off (they would drown mocha's output), stopped after them, with a scratch directory.
 */
export function simulatorForSuite(prefix: string, options: SimulatorOptions = {}): SuiteSimulator {
  const suite = {} as { sim: Simulator; dir: string };
  const quiet = process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG;
  before(async () => {
    process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG = "0";
    suite.sim = await startSimulator(options);
    suite.dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  after(async () => {
    if (quiet === undefined) delete process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG;
    else process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG = quiet;
    await suite.sim?.stop();
    if (suite.dir) fs.rmSync(suite.dir, { recursive: true, force: true });
  });
  return suite;
}
