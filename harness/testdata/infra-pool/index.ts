import * as pulumi from "@pulumi/pulumi";
import { InfraNodePool, MachineConfig } from "../../../index";

const config = new pulumi.Config();
// Tests run the simulator fast; a wait that has not converged in a minute never will.
const waitTimeouts = { create: "60s", update: "60s", delete: "60s" };

/** The pool and a MachineConfig for it; `infra=false` declares nothing, as a destroy. */
function infraPool() {
  const infra = new InfraNodePool("infra", {
    zones: ["us-east-2a"],
    replicas: 1,
    wait: config.getBoolean("wait") ?? true,
    waitTimeouts,
  });
  if (config.getBoolean("motd") !== false) {
    new MachineConfig("99-infra-motd", {
      role: infra.role,
      files: [{ path: "/etc/motd", contents: { text: config.get("motdText") ?? "first revision\n" } }],
      waitTimeouts,
    });
  }
  return infra;
}

const infra = config.getBoolean("infra") === false ? undefined : infraPool();
// A second pool, for revisions that remove one pool and keep the other.
if (config.getBoolean("edge")) {
  new InfraNodePool("edge", {
    role: "edge",
    zones: ["us-east-2b"],
    replicas: 1,
    wait: config.getBoolean("wait") ?? true,
    waitTimeouts,
  });
}
export const machineSets = infra?.machineSetNames;
export const renderedConfig = infra?.renderedConfig;
