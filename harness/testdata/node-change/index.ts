import * as pulumi from "@pulumi/pulumi";
import { MachineConfig, MachineConfigPool, NodeDisruptionPolicy } from "../../../index";

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

// A custom pool that inherits the worker configs and rolls them out after the worker pool.
const ordered = config.get("poolAfterWorkers");
if (ordered) new MachineConfigPool(ordered, { rollOutAfter: ["worker"] });

new MachineConfig(config.require("name"), {
  role: "worker",
  files: [{ path: config.require("path"), contents: { text: config.require("text") } }],
  waitTimeouts: { create: "60s", update: "60s", delete: "60s" },
});
