import { InputError } from "../errors";

/**
 * Azure regions with availability zones (Microsoft's "Azure regions with availability zone support"
 * list, learn.microsoft.com/azure/reliability/regions-list, as of 2025-06). A pool in one of them must
 * name its zones; only regions outside it may run zone-less pools.
 */
export const AZURE_ZONAL_REGIONS: ReadonlySet<string> = new Set([
  "australiaeast",
  "austriaeast",
  "belgiumcentral",
  "brazilsouth",
  "canadacentral",
  "centralindia",
  "centralus",
  "chilecentral",
  "chinanorth3",
  "denmarkeast",
  "eastasia",
  "eastus",
  "eastus2",
  "francecentral",
  "germanywestcentral",
  "indonesiacentral",
  "israelcentral",
  "italynorth",
  "japaneast",
  "japanwest",
  "koreacentral",
  "malaysiawest",
  "mexicocentral",
  "newzealandnorth",
  "northeurope",
  "norwayeast",
  "polandcentral",
  "qatarcentral",
  "southafricanorth",
  "southcentralus",
  "southeastasia",
  "spaincentral",
  "swedencentral",
  "switzerlandnorth",
  "uaenorth",
  "uksouth",
  "usgovvirginia",
  "westeurope",
  "westus2",
  "westus3",
]);

/**
 * Azure regions without availability zones, from the same list: a pool there runs one MachineSet
 * without a zone (its machines in an availability set), and a zone is refused. A region on neither
 * list (a new one) may name zones "1" to "3".
 */
export const AZURE_REGIONS_WITHOUT_ZONES: ReadonlySet<string> = new Set([
  "australiacentral",
  "australiacentral2",
  "australiasoutheast",
  "brazilsoutheast",
  "canadaeast",
  "chinaeast",
  "chinaeast2",
  "chinanorth",
  "chinanorth2",
  "francesouth",
  "germanynorth",
  "jioindiacentral",
  "jioindiawest",
  "koreasouth",
  "northcentralus",
  "norwaywest",
  "southafricawest",
  "southindia",
  "switzerlandwest",
  "uaecentral",
  "ukwest",
  "westcentralus",
  "westindia",
  "westus",
]);

/** Azure's zone numbers, where a region has zones at all. */
export const AZURE_ZONES = ["1", "2", "3"] as const;

/**
 * Throws at `path` when `zone` is not an availability zone Azure has: "1", "2" or "3", and with
 * `table` none in a region the table knows to have no zones.
 */
export function checkAzureZone(path: string, zone: string, region: string, table: boolean): void {
  if (!(AZURE_ZONES as readonly string[]).includes(zone)) {
    throw new InputError(
      path,
      `Azure zone ${JSON.stringify(zone)} does not exist: use "1", "2" or "3" (Azure numbers a region's availability zones 1 to 3, where it has zones at all)`,
    );
  }
  if (table && AZURE_REGIONS_WITHOUT_ZONES.has(region)) {
    throw new InputError(
      path,
      `Azure region ${JSON.stringify(region)} has no availability zones: use zones: [] (one MachineSet, its machines in an availability set)`,
    );
  }
}
