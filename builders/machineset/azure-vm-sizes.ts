import { InputError } from "../errors";

/**
 * An Azure VM size as Microsoft names them ("Azure virtual machine sizes naming conventions"): the
 * tier, the family letters, the vCPUs (with the constrained count after a dash), the feature letters,
 * then an accelerator or variant, the version and the promotion suffix, each after an underscore:
 * `Standard_D4s_v3`, `Standard_E8-4s_v5`, `Standard_NC4as_T4_v3`, `Standard_M416s_8_v2`,
 * `Standard_D2_v2_Promo`, `Basic_A1`, `Standard_GS5-16`. Azure reads sizes case-insensitively
 * (machine-api-provider-azure resourceskus/cache.go `Get` compares with strings.EqualFold), so does this.
 */
const VM_SIZE = /^(?:Standard|Basic)_[A-Z]+\d+(?:-\d+)?[A-Z]*(?:_[A-Z]*\d+[A-Z]*)*(?:_Promo)?$/i;

/** Whether `name` has the shape of an Azure VM size (not whether the region offers it). */
export function isAzureVmSizeName(name: string): boolean {
  return VM_SIZE.test(name);
}

/** Spellings a user may have meant: the tier, the underscore after it and before the version. */
function candidates(name: string): string[] {
  const trimmed = name.trim();
  const tiered = /^(standard|basic)[-_ ]?/i.test(trimmed)
    ? trimmed.replace(/^(standard|basic)[-_ ]?/i, (_, tier: string) => `${tier}_`)
    : `Standard_${trimmed}`;
  // The version glued to the features (`E16sv5`) or set off by a dash or space (`E16s-v5`).
  const versioned = tiered.replace(/(?:[- ]|(?<=[a-z]))(v\d+)$/i, "_$1");
  return [tiered, versioned];
}

/** What is wrong with `name` as a VM size, with the spelling meant when there is one; undefined when fine. */
export function azureVmSizeProblem(name: unknown): string | undefined {
  if (typeof name !== "string" || name === "") {
    return `must be an Azure VM size such as "Standard_D4s_v3", got ${JSON.stringify(name)}`;
  }
  if (isAzureVmSizeName(name)) return undefined;
  const meant = candidates(name).find(isAzureVmSizeName);
  return `${JSON.stringify(name)} is not an Azure VM size${meant ? `: did you mean ${JSON.stringify(meant)}?` : ""} (sizes are Standard_<family><vCPUs>[-<active vCPUs>]<features>[_<accelerator>][_v<version>], e.g. "Standard_D4s_v3", "Standard_E8-4s_v5", "Standard_NC4as_T4_v3")`;
}

/** `name` when it has the shape of a VM size; otherwise an InputError at `path` saying what was meant. */
export function requireAzureVmSize(path: string, name: unknown): string {
  const problem = azureVmSizeProblem(name);
  if (problem) throw new InputError(path, problem);
  return name as string;
}
