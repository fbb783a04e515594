import * as pulumi from "@pulumi/pulumi";
import { CanaryPool, MachineConfig, NodeDisruptionPolicy } from "../../../index";

const config = new pulumi.Config();

// Declared first, so that the MachineConfig is applied after it and its nodes follow it.
const reload = config.get("reloadPath");
if (reload)
  new NodeDisruptionPolicy("reload", {
    files: [
      {
        path: reload,
        actions: [{ type: "Reload", reload: { serviceName: config.require("reloadService") } }],
      },
    ],
  });

// A canary of the worker pool: the worker configs reach this node first, the other workers after it.
const canary = config.get("canaryNode");
if (canary) new CanaryPool("canary", { nodes: [canary] });

new MachineConfig(config.require("name"), {
  role: "worker",
  files: [{ path: config.require("path"), contents: { text: config.require("text") } }],
  waitTimeouts: { create: "60s", update: "60s", delete: "60s" },
});
