import {
  MachineSetPlatform,
  MachineSetPlatformModule,
  PlatformOptions,
  platformModule,
} from "../../builders/machineset";
import { AWS_CLOUD } from "./aws";
import { AZURE_CLOUD } from "./azure";
import { CloudPlatform } from "./platform";

/**
 * The Pulumi side of each platform the builders' table lists (builders/machineset/platforms.ts), by the
 * same name: a platform there without an entry here does not type-check.
 */
const CLOUDS: { [P in MachineSetPlatform]: CloudPlatform<Partial<PlatformOptions[P]>> } = {
  aws: AWS_CLOUD,
  azure: AZURE_CLOUD,
};

/** Both sides of a platform the cluster facts have already accepted. */
export function platformModules(platform: MachineSetPlatform): {
  machineSets: MachineSetPlatformModule<object>;
  cloud: CloudPlatform<object>;
} {
  return {
    machineSets: platformModule("platform", platform) as MachineSetPlatformModule<object>,
    cloud: CLOUDS[platform] as CloudPlatform<object>,
  };
}
