import { InputError } from "../errors";
import { AWS_PLATFORM } from "./aws";
import { AZURE_PLATFORM } from "./azure";
import { MachineSetPlatformModule } from "./platform";

/**
 * The clouds pools run on, by the name a pool spec and the cluster facts use. The only place a cloud is
 * named: a new one (GCP, vSphere) is a module implementing MachineSetPlatformModule and an entry here,
 * with its Pulumi side in components/platforms.
 */
const PLATFORMS = { aws: AWS_PLATFORM, azure: AZURE_PLATFORM };

export type MachineSetPlatform = keyof typeof PLATFORMS;

/** What a user sets on each cloud's machines, by platform name. */
export type PlatformOptions = {
  [P in MachineSetPlatform]: (typeof PLATFORMS)[P] extends MachineSetPlatformModule<infer O> ? O : never;
};

export const MACHINESET_PLATFORMS = Object.keys(PLATFORMS) as MachineSetPlatform[];

/** Whether `name` is a platform pools can run on. */
export function isMachineSetPlatform(name: unknown): name is MachineSetPlatform {
  return typeof name === "string" && Object.prototype.hasOwnProperty.call(PLATFORMS, name);
}

/** The module of `name`, or an InputError at `path` listing the platforms there are. */
export function platformModule<P extends MachineSetPlatform>(
  path: string,
  name: P,
): MachineSetPlatformModule<PlatformOptions[P]> {
  if (!isMachineSetPlatform(name)) {
    throw new InputError(
      path,
      `${JSON.stringify(name)} is not supported: use ${MACHINESET_PLATFORMS.map((p) => JSON.stringify(p)).join(" or ")}`,
    );
  }
  return PLATFORMS[name] as MachineSetPlatformModule<PlatformOptions[P]>;
}
