import * as pulumi from "@pulumi/pulumi";
import { MachineConfig } from "../../../index";

const config = new pulumi.Config();
// Set with `npm run deploy -- config set motd ...`: the command remembers it in Pulumi.<stack>.yaml.
const motd = config.require("motd");

const banner = new MachineConfig("99-worker-motd", {
  role: "worker",
  files: [{ path: "/etc/motd", contents: { text: motd } }],
  waitTimeouts: { create: "60s", update: "60s", delete: "60s" },
});

export const renderedConfig = banner.renderedConfig;
export const motdText = pulumi.secret(motd);
