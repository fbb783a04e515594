import { observeExtensionInstall, uninstallExtension, waitForExtensionInstall } from "../waiting/waiters";
import { ArgsOf, ProviderOf, defineRemoval, defineWaiter, objectName, output } from "./schema";
import * as self from "./extension";

/**
 * Waits until operator-controller reports an OLM v1 ClusterExtension installed (Installed True,
 * Progressing Succeeded for its current generation); fails on a Blocked extension or one it keeps
 * retrying. Deleting it changes nothing in the cluster: uninstalling is `ExtensionRemoval`'s job.
 */
export const ExtensionInstall = defineWaiter({
  kind: "ExtensionInstall",
  locate: (): ProviderOf => self.extensionInstallProvider,
  inputs: {
    /** The ClusterExtension's name. */
    extension: objectName({ required: true }),
  },
  outputs: {
    /** The installed bundle. */
    bundle: output<string>(),
    /** Its version. */
    version: output<string>(),
  },
  id: (inputs) => `clusterextension/${inputs.extension}`,
  wait: (options) => waitForExtensionInstall(options),
  observe: (options) => observeExtensionInstall(options),
});
export type ExtensionInstall = InstanceType<typeof ExtensionInstall>;
export type ExtensionInstallArgs = ArgsOf<typeof ExtensionInstall>;
/** The whole provider, which the one each ExtensionInstall carries finds by this name: keep it. */
export const extensionInstallProvider = ExtensionInstall.provider;

/**
 * Uninstalls a ClusterExtension when it is deleted: deletes it and waits until operator-controller has
 * removed what it installed and released its finalizers. Declare it depending on the ClusterExtension.
 */
export const ExtensionRemoval = defineRemoval({
  kind: "ExtensionRemoval",
  locate: (): ProviderOf => self.extensionRemovalProvider,
  inputs: {
    /** The ClusterExtension's name. */
    extension: objectName({ required: true }),
  },
  id: (inputs) => `clusterextension-removal/${inputs.extension}`,
  observe: (options) => observeExtensionInstall(options),
  remove: (options) => uninstallExtension(options),
});
export type ExtensionRemoval = InstanceType<typeof ExtensionRemoval>;
export type ExtensionRemovalArgs = ArgsOf<typeof ExtensionRemoval>;
/** The whole provider, which the one each ExtensionRemoval carries finds by this name: keep it. */
export const extensionRemovalProvider = ExtensionRemoval.provider;
