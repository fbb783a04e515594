import * as pulumi from "@pulumi/pulumi";
import { MachineConfig } from "../../../index";

const config = new pulumi.Config();

new MachineConfig(config.require("name"), {
  role: "worker",
  files: [{ path: config.require("path"), contents: { text: config.require("text") } }],
  waitTimeouts: { create: "60s", update: "60s", delete: "60s" },
});
