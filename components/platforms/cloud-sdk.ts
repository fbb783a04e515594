import { inputPropertyError } from "../errors";

/** The cloud SDKs, optional peer dependencies: a program installs the one of the cloud it runs on. */
export type CloudSdk = "@pulumi/aws" | "@pulumi/azure-native";

function isMissing(error: unknown, sdk: CloudSdk): boolean {
  const e = error as { code?: unknown; message?: unknown } | undefined;
  return e?.code === "MODULE_NOT_FOUND" && typeof e.message === "string" && e.message.includes(`'${sdk}/`);
}

/**
 * A cloud SDK module, loaded where that cloud's lookups run rather than when the library loads. When
 * the SDK is not installed, `property` (the input that asked for the lookup) gets an input error naming
 * the package to install; `givenInstead` says what to give instead when the lookup stands for a
 * property left out (`region`), so that the user sees both ways out.
 */
export function cloudModule<T>(sdk: CloudSdk, property: string, load: () => T, givenInstead?: string): T {
  try {
    return load();
  } catch (error) {
    if (!isMissing(error, sdk)) throw error;
    const instead = givenInstead
      ? `not given, and looking it up needs the ${sdk} package, which is not installed: give ${property} (${givenInstead}), or add the package to the program`
      : `needs the ${sdk} package, which is not installed: add it to the program`;
    throw inputPropertyError(
      property,
      `${instead} (npm install ${sdk}); this library leaves each cloud's SDK to the programs that run on that cloud`,
    );
  }
}
