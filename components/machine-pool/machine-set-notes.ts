/**
 * A preview's notes on a pool's MachineSets (where their network references come from, who owns their
 * boot image) are said when they concern a change: for a MachineSet the cluster does not hold yet, or
 * whose template's provider spec the program changes in the fields the note is about. Otherwise they go
 * out at debug (`--debug` shows them), so that a reviewer does not read them again on every preview;
 * warnings are always said.
 */
import * as pulumi from "@pulumi/pulumi";
import { differsFromDeclared } from "../../builders/machineset";
import { field, KubeObject } from "../../provider/waiting/kinds";
import { clusterOfThisRun } from "../cluster/preview-run";

/** A MachineSet as the program declares it, as far as its notes concern it. */
export interface NotedMachineSet {
  metadata: { name: string };
  spec: { template: { spec: { providerSpec: { value: Record<string, unknown> } } } };
}

export interface MachineSetNote {
  machineSet: NotedMachineSet;
  text: string;
  warn?: boolean;
  /** The provider spec fields the note is about: a change of one of them makes it news. */
  fields: readonly string[];
}

/** The cluster's MachineSets, or undefined when it gives no answer (every note is then news). */
async function liveMachineSets(kubeconfig: string | undefined): Promise<KubeObject[] | undefined> {
  if (kubeconfig === undefined) return undefined;
  const cluster = clusterOfThisRun(kubeconfig);
  if ((await cluster.unreachableBecause()) !== undefined) return undefined;
  return cluster.machineSets().catch(() => undefined);
}

/** Whether the note concerns a MachineSet the cluster lacks, or a field of it the program changes. */
function isNews(note: MachineSetNote, live: KubeObject[]): boolean {
  const now = live.find((m) => m.metadata.name === note.machineSet.metadata.name);
  if (!now) return true;
  const spec = field<Record<string, unknown>>(now, "spec", "template", "spec", "providerSpec", "value") ?? {};
  const declared = note.machineSet.spec.template.spec.providerSpec.value;
  return note.fields.some((k) => k in declared && differsFromDeclared({ [k]: declared[k] }, spec));
}

/** Logs each note on `parent`: warnings always, the others at info only when they are news. */
export async function noteMachineSets(
  parent: pulumi.Resource,
  kubeconfig: string | undefined,
  notes: MachineSetNote[],
): Promise<void> {
  const live = await liveMachineSets(kubeconfig);
  for (const note of notes) {
    if (note.warn) pulumi.log.warn(note.text, parent);
    else if (!live || isNews(note, live)) pulumi.log.info(note.text, parent);
    else pulumi.log.debug(note.text, parent);
  }
}
